import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// OpenSSL's configuration applies to every operation netvigil asks of it: an operator's `OPENSSL_CONF` that loads
/// only some providers (a FIPS provider, say) decides which algorithms a verification may use. Here a configuration
/// that activates only the `base` provider (encoders and decoders, no signature algorithms) must leave netvigil unable
/// to verify a chain that the default configuration trusts.
final class OpenSSLConfigurationTests: XCTestCase {
    func testAProviderConfigurationIsHonoured() throws {
        let directory = try TemporaryDirectory()
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true, "key": "rsa2048"], ["name": "inter", "issuer": "root", "ca": true, "key": "rsa2048"],
            ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"], "key": "rsa2048"],
        ])
        try made["root"]!.pem.write(toFile: directory.path("root.pem"), atomically: true, encoding: .utf8)
        try (made["leaf"]!.pem + made["inter"]!.pem).write(toFile: directory.path("chain.pem"), atomically: true, encoding: .utf8)
        let baseOnly = try directory.write("base-only.cnf", """
            openssl_conf = openssl_init
            [openssl_init]
            providers = provider_sect
            [provider_sect]
            base = base_sect
            [base_sect]
            activate = 1
            """)
        let arguments = ["trust", "evaluate", "--chain", directory.path("chain.pem"), "--ca", directory.path("root.pem"),
                         "--no-system-roots", "--host", "www.example.com"]
        var environment = ProcessInfo.processInfo.environment
        let trusted = try ProcessRunner.run(arguments, environment: environment)
        XCTAssertEqual(trusted.status, 0, trusted.stdout + trusted.stderr)
        environment["OPENSSL_CONF"] = baseOnly
        let withoutSignatures = try ProcessRunner.run(arguments, environment: environment)
        XCTAssertNotEqual(withoutSignatures.status, 0, "only the base provider is loaded, yet the chain verified:\n"
                          + withoutSignatures.stdout + withoutSignatures.stderr)
    }
}
