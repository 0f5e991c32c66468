import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// `netvigil pin` and `netvigil trust evaluate`, run as the built binary (swift test builds it next to the tests).
final class TrustCLITests: XCTestCase {
    let pki = PKI.shared

    /// Runs the built binary through the shared runner (reads stdout and stderr concurrently, with a timeout).
    func netvigil(_ arguments: [String]) throws -> ProcessRunner.Result {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: ProcessRunner.binary.path),
                      "netvigil binary not built at \(ProcessRunner.binary.path)")
        return try ProcessRunner.run(arguments)
    }

    func testPinPrintsPinsOfEveryCertificate() throws {
        let result = try netvigil(["pin", pki.path("chain-rsa.pem")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("pin:        \(pki.leafRSA.spkiPin)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("pin:        \(pki.interRSA.spkiPin)"), result.stdout)
        XCTAssertTrue(result.stdout.contains(pki.leafRSA.sha256Fingerprint), result.stdout)
        XCTAssertTrue(result.stdout.contains("CN=www.example.test,O=NetVigil Tests"), result.stdout)
    }

    func testPinJSON() throws {
        let result = try netvigil(["pin", "--json", pki.path("leafEC.pem")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.count, 1)
        XCTAssertEqual(array[0]["pin"] as? String, pki.leafEC.spkiPin.description)
        XCTAssertEqual(array[0]["sha256"] as? String, pki.leafEC.sha256Fingerprint)
        XCTAssertEqual(array[0]["file"] as? String, pki.path("leafEC.pem"))
        XCTAssertNotNil(array[0]["not_after"] as? String)
    }

    func testPinErrors() throws {
        let missing = try netvigil(["pin", pki.path("nope.pem")])
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        let notCertificate = try netvigil(["pin", pki.path("pki.cnf")])
        XCTAssertEqual(notCertificate.status, 65)
        XCTAssertTrue(notCertificate.stderr.hasPrefix("netvigil: "), notCertificate.stderr)
    }

    func testEvaluateTrustedAndUntrustedExitCodes() throws {
        let base = ["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--ca", pki.path("test-roots.pem"), "--no-system-roots"]
        let trusted = try netvigil(base + ["--host", "www.example.test"])
        XCTAssertEqual(trusted.status, 0, trusted.stdout + trusted.stderr)
        XCTAssertTrue(trusted.stdout.hasPrefix("verdict: trusted"), trusted.stdout)
        XCTAssertTrue(trusted.stdout.contains("validated chain:\n  [0] CN=www.example.test"), trusted.stdout)
        let wrongHost = try netvigil(base + ["--host", "evil.example.test"])
        XCTAssertEqual(wrongHost.status, 1)
        XCTAssertTrue(wrongHost.stdout.hasPrefix("verdict: untrusted (hostnameMismatch)"), wrongHost.stdout)
        let systemOnly = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--host", "www.example.test"])
        XCTAssertEqual(systemOnly.status, 1)
        XCTAssertTrue(systemOnly.stdout.contains("unable to get local issuer certificate"), systemOnly.stdout)
    }

    func testEvaluateAtADateAfterExpiry() throws {
        let result = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--ca", pki.path("test-roots.pem"),
                                   "--host", "www.example.test", "--at", "+400d"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("certificate has expired"), result.stdout)
    }

    func testEvaluateJSONWithPins() throws {
        let result = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--ca", pki.path("test-roots.pem"),
                                   "--host", "www.example.test", "--pin", pki.rootEC.spkiPin.description,
                                   "--pin", pki.leafEC.spkiPin.description, "--json"])
        XCTAssertEqual(result.status, 1)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["trusted"] as? Bool, false)
        XCTAssertEqual((json["reason"] as? [String: Any])?["kind"] as? String, "publicKeyPinMismatch")
        XCTAssertEqual(json["pin_mismatch_reported"] as? Bool, false)
        XCTAssertEqual((json["served_chain"] as? [Any])?.count, 2)
        XCTAssertEqual((json["validated_chain"] as? [Any])?.count, 3)
        XCTAssertEqual((json["pins"] as? [String: [String]])?["configured"]?.count, 2)

        let reportOnly = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--ca", pki.path("test-roots.pem"),
                                       "--host", "www.example.test", "--pin", pki.rootEC.spkiPin.description, "--report-only", "--json"])
        XCTAssertEqual(reportOnly.status, 0, reportOnly.stderr)
        let reported = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reportOnly.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(reported["pin_mismatch_reported"] as? Bool, true)
    }

    func testSelfSignedRuleAndUsageErrorsExit64() throws {
        let selfSigned = try netvigil(["trust", "evaluate", "--chain", pki.path("selfAltName.pem"), "--host", "foobar.test",
                                       "--allow-invalid-certificates"])
        XCTAssertEqual(selfSigned.status, 64)
        XCTAssertTrue(selfSigned.stderr.contains("requires enforcing pins"), selfSigned.stderr)
        XCTAssertEqual(selfSigned.stderr.split(separator: "\n").count, 1, selfSigned.stderr)
        let pinned = try netvigil(["trust", "evaluate", "--chain", pki.path("selfAltName.pem"), "--host", "foobar.test",
                                   "--allow-invalid-certificates", "--pinning", "certificate", "--pin-cert", pki.path("selfAltName.pem")])
        XCTAssertEqual(pinned.status, 0, pinned.stdout + pinned.stderr)
        let badPin = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--host", "x", "--pin", "sha1/abc"])
        XCTAssertEqual(badPin.status, 64)
        let badTime = try netvigil(["trust", "evaluate", "--chain", pki.path("chain-rsa.pem"), "--host", "x", "--at", "tomorrow"])
        XCTAssertEqual(badTime.status, 64)
        let missingChain = try netvigil(["trust", "evaluate", "--chain", pki.path("nope.pem"), "--host", "x"])
        XCTAssertEqual(missingChain.status, 66)
    }
}
