import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Client certificates (mTLS) against real servers: nginx with `ssl_verify_client on` (which answers 400 after the
/// handshake) and `openssl s_server -Verify` (which refuses in the handshake with an alert), TLS 1.2 and 1.3.
final class ClientCertificateTests: ProbeTestCase {
    private var servers: ClientCertificateServers!

    override func setUpWithError() throws {
        servers = try ClientCertificateServers()
    }

    override func tearDown() {
        servers?.stop()
        servers = nil
    }

    private func identity(_ name: String, password: Bool = false) throws -> ClientIdentity {
        let files = servers.files(name)
        return try ClientIdentity(certificatePath: files.certificate, keyPath: files.key, passwordFile: password ? files.password : nil)
    }

    private func configuration(presenting identity: ClientIdentity?, to host: String = "127.0.0.1") throws -> ProbeConfiguration {
        var configuration = try configuration()
        if let identity { configuration.clientIdentities.set(identity, for: try HostPattern(host)) }
        return configuration
    }

    /// `openssl s_server` offering only TLS `version`, requiring a certificate of the client CA.
    private func openSSLServer(version: String) throws -> OpenSSLServerProcess {
        try OpenSSLServerProcess(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"),
                                 clientCA: servers.clientCA.directory.path("ca.pem"), version: version)
    }

    func testEveryKeyTypeGets200AndATrustedChainInTLS12And13() async throws {
        for name in LoopbackPKI.ClientKeyType.allCases.map(\.rawValue) + ["encrypted"] {
            let configuration = try configuration(presenting: try identity(name, password: name == "encrypted"))
            for port in [servers.tls12Port, servers.tls13Port] {
                let result = try await probe("https://127.0.0.1:\(port)/who", configuration: configuration)
                let label = "\(name) on \(port == servers.tls12Port ? "TLS 1.2" : "TLS 1.3")"
                XCTAssertTrue(result.isOK, "\(label): \(String(describing: result.error))")
                XCTAssertEqual(result.status, 200, label)
                XCTAssertEqual(result.trustVerdict, .trusted, label)
            }
        }
    }

    func testNoCertificateIsClientCertificateRequired() async throws {
        let configuration = try configuration(presenting: nil)
        for port in [servers.tls12Port, servers.tls13Port] {
            let result = try await probe("https://127.0.0.1:\(port)/who", configuration: configuration)
            XCTAssertEqual(result.error?.kind, .clientCertificateRequired, "nginx \(port): \(String(describing: result.error))")
        }
        for (version, alert) in [("1.3", "certificate required"), ("1.2", "handshake failure")] {
            let server = try openSSLServer(version: version)
            defer { server.stop() }
            let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration)
            XCTAssertEqual(result.error?.kind, .clientCertificateRequired, "s_server TLS \(version): \(String(describing: result.error))")
            XCTAssertEqual(result.error?.alert, alert, "s_server TLS \(version)")
        }
    }

    func testCertificateFromAnotherCAIsRejectedNamingTheAlert() async throws {
        let configuration = try configuration(presenting: try identity("stranger"))
        for version in ["1.3", "1.2"] {
            let server = try openSSLServer(version: version)
            defer { server.stop() }
            let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration)
            XCTAssertEqual(result.error?.kind, .clientCertificateRejected, "s_server TLS \(version): \(String(describing: result.error))")
            XCTAssertEqual(result.error?.alert, "unknown ca", "s_server TLS \(version)")
            XCTAssertTrue(result.error?.message.contains("unknown ca") == true, result.error?.message ?? "")
        }
        for port in [servers.tls12Port, servers.tls13Port] {
            let result = try await probe("https://127.0.0.1:\(port)/who", configuration: configuration)
            XCTAssertEqual(result.error?.kind, .clientCertificateRejected, "nginx \(port): \(String(describing: result.error))")
        }
    }

    func testTheRightCertificateAlsoWorksAgainstAnOpenSSLServer() async throws {
        let configuration = try configuration(presenting: try identity("ed25519"))
        for version in ["1.3", "1.2"] {
            let server = try openSSLServer(version: version)
            defer { server.stop() }
            let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration)
            XCTAssertTrue(result.isOK, "TLS \(version): \(String(describing: result.error))")
        }
    }

    func testTLSServiceTargetsPresentTheCertificateToo() async throws {
        let presenting = try configuration(presenting: try identity("ecdsaP256"))
        let bare = try configuration(presenting: nil)
        for version in ["1.3", "1.2"] {
            let server = try openSSLServer(version: version)
            defer { server.stop() }
            let url = try XCTUnwrap(URL(string: "tls://127.0.0.1:\(server.port)"))
            let accepted = await Prober().probe(ProbeRequest(url: url), configuration: presenting)
            XCTAssertTrue(accepted.isOK, "tls:// TLS \(version): \(String(describing: accepted.error))")
            let refused = await Prober().probe(ProbeRequest(url: url), configuration: bare)
            XCTAssertEqual(refused.error?.kind, .clientCertificateRequired, "tls:// TLS \(version): \(String(describing: refused.error))")
        }
    }

    func testTheCertificateGoesOnlyToTheHostsItIsConfiguredFor() async throws {
        // Configured for localhost only: a probe of 127.0.0.1 presents nothing.
        let configuration = try configuration(presenting: try identity("rsa"), to: "localhost")
        let other = try await probe("https://127.0.0.1:\(servers.tls13Port)/who", configuration: configuration)
        XCTAssertEqual(other.error?.kind, .clientCertificateRequired)
        let own = try await probe("https://localhost:\(servers.tls13Port)/who", configuration: configuration)
        XCTAssertTrue(own.isOK, String(describing: own.error))
    }

    func testTheKeyIsLoadedOnceAndTheContextIsShared() throws {
        var first = TLSConfiguration()
        first.clientIdentity = try identity("ecdsaP256")
        var second = TLSConfiguration()
        second.clientIdentity = try identity("ecdsaP256")  // the same files read again (a reload)
        XCTAssertEqual(first, second)
        XCTAssertTrue(try OpenSSLClientContext.shared(for: first) === OpenSSLClientContext.shared(for: second))
        XCTAssertFalse(try OpenSSLClientContext.shared(for: first) === OpenSSLClientContext.shared(for: TLSConfiguration()))
    }

    func testLoadErrorsNameTheProblemAndNeverTheKeyOrPassword() throws {
        let encrypted = servers.files("encrypted"), rsa = servers.files("rsa"), ecdsa = servers.files("ecdsaP256")
        let scratch = try TemporaryDirectory()
        let wrongPassword = try scratch.write("wrong.pass", "SECRET-wrong-password\n")
        let notAKey = try scratch.write("garbage.key", "SECRET-not-a-key\n")
        let ed448 = scratch.path("ed448.key")
        XCTAssertEqual(try ProcessRunner.run(["genpkey", "-algorithm", "ED448", "-out", ed448],
                                             executable: URL(fileURLWithPath: "/usr/bin/openssl")).status, 0)
        let cases: [(ClientIdentityError, () throws -> ClientIdentity)] = [
            (.keyMismatch(certificatePath: rsa.certificate, keyPath: ecdsa.key),
             { try ClientIdentity(certificatePath: rsa.certificate, keyPath: ecdsa.key) }),
            (.passwordRequired(path: encrypted.key),
             { try ClientIdentity(certificatePath: encrypted.certificate, keyPath: encrypted.key) }),
            (.wrongPassword(path: encrypted.key),
             { try ClientIdentity(certificatePath: encrypted.certificate, keyPath: encrypted.key, passwordFile: wrongPassword) }),
            (.noKey(path: notAKey), { try ClientIdentity(certificatePath: rsa.certificate, keyPath: notAKey) }),
            (.unsupportedKey(path: ed448), { try ClientIdentity(certificatePath: rsa.certificate, keyPath: ed448) }),
        ]
        let keyText = try String(contentsOfFile: rsa.key, encoding: .utf8)
        for (expected, load) in cases {
            XCTAssertThrowsError(try load()) { error in
                XCTAssertEqual(error as? ClientIdentityError, expected)
                let text = "\(error)"
                XCTAssertFalse(text.contains("SECRET") || text.contains("PRIVATE KEY") || text.contains(keyText.prefix(40)), text)
            }
        }
        XCTAssertFalse(servers.errorLog.contains("SECRET"))
    }

    func testAGroupReadableKeyIsFlagged() throws {
        let key = servers.files("ecdsaP256").key
        XCTAssertNil(ClientIdentity.keyFileWarning(key))
        chmod(key, 0o640)
        defer { chmod(key, 0o600) }
        let warning = try XCTUnwrap(ClientIdentity.keyFileWarning(key))
        XCTAssertTrue(warning.contains(key) && warning.contains("640"), warning)
    }

    func testIdentitySetPrefersTheMostSpecificPattern() throws {
        let rsa = try identity("rsa"), ecdsa = try identity("ecdsaP256"), ed = try identity("ed25519")
        var set = ClientIdentitySet()
        set.set(rsa, for: try HostPattern("**.example.com"))
        set.set(ecdsa, for: try HostPattern("*.example.com"))
        set.set(ed, for: try HostPattern("api.example.com"))
        XCTAssertTrue(set.identity(for: "api.example.com") === ed)
        XCTAssertTrue(set.identity(for: "www.example.com") === ecdsa)
        XCTAssertTrue(set.identity(for: "a.b.example.com") === rsa)
        XCTAssertNil(set.identity(for: "example.org"))
    }
}
