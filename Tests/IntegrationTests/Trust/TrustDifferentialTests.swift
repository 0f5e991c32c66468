import Foundation
import NetVigilTestSupport
import XCTest

/// The trust differential test (Tests/TrustDifferential): netvigil's verdict on ~100 generated chains (openssl,
/// easy-rsa, mkcert, cfssl, Go, pyca/cryptography, hand-made edge cases) against OpenSSL, Go, pyca/cryptography,
/// GnuTLS and NSS. Fails when netvigil departs from the validators' majority outside the decided splits
/// (Tests/TrustDifferential/splits.json) or when any validator cannot run.
final class TrustDifferentialTests: XCTestCase {
    func testNetVigilAgreesWithMainstreamValidators() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: ProcessRunner.binary.path),
                      "netvigil binary not built at \(ProcessRunner.binary.path)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()  // Tests/IntegrationTests/Trust/<this file>
        let script = root.appendingPathComponent("Tests/TrustDifferential/run.py").path
        let result = try ProcessRunner.run([
            "python3", script, "--netvigil", ProcessRunner.binary.path,
            "--splits", root.appendingPathComponent("Tests/TrustDifferential/splits.json").path,
        ], executable: URL(fileURLWithPath: "/usr/bin/env"), currentDirectory: root, timeout: 600)
        XCTAssertEqual(result.status, 0, "Tests/TrustDifferential/run.py failed:\n\(result.stdout)\n\(result.stderr)")
    }
}
