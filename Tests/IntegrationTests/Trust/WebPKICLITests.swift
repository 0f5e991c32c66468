import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// `trust evaluate --validation`, `--untrusted`, `--no-validate-domain-name` without `--host`, and findings in `--json`.
final class WebPKICLITests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "netvigil-webpki-cli-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            // Without authorityKeyIdentifier: a finding clients tolerate, so the output has one to show.
            ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"], "aki": false],
            ["name": "cnonly", "issuer": "inter", "dns": [String](), "cn": "www.example.com", "aki": false],
        ])
        for (name, certificate) in made {
            try certificate.pem.write(toFile: path(name), atomically: true, encoding: .utf8)
        }
        try (made["cnonly"]!.pem + made["inter"]!.pem).write(toFile: path("cnonly-chain"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func path(_ name: String) -> String { directory + "/\(name).pem" }

    func evaluate(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["trust", "evaluate", "--no-system-roots", "--ca", path("root")] + arguments)
    }

    func testValidationProfileFlag() throws {
        let strict = try evaluate(["--chain", path("cnonly-chain"), "--host", "www.example.com", "--json"])
        XCTAssertEqual(strict.status, 1, strict.stdout + strict.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["verdict"] as? String, "untrusted:hostnameMismatch")
        let relaxed = try evaluate(["--chain", path("cnonly-chain"), "--host", "www.example.com", "--validation", "rfc5280"])
        XCTAssertEqual(relaxed.status, 0, relaxed.stdout + relaxed.stderr)
        XCTAssertTrue(relaxed.stdout.contains("validation: rfc5280"), relaxed.stdout)
        XCTAssertTrue(relaxed.stdout.contains("[0] e_ext_authority_key_identifier_missing: "), relaxed.stdout)
        let bad = try evaluate(["--chain", path("cnonly-chain"), "--host", "www.example.com", "--validation", "browser"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
    }

    func testUntrustedIntermediatesAndNoHost() throws {
        let alone = try evaluate(["--chain", path("leaf"), "--no-validate-domain-name"])
        XCTAssertEqual(alone.status, 1, alone.stdout + alone.stderr)
        let completed = try evaluate(["--chain", path("leaf"), "--untrusted", path("inter"), "--no-validate-domain-name", "--json"])
        XCTAssertEqual(completed.status, 0, completed.stdout + completed.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(completed.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["trusted"] as? Bool, true)
        XCTAssertEqual((report["served_chain"] as? [Any])?.count, 1)
        XCTAssertEqual((report["validated_chain"] as? [Any])?.count, 3)
        let findings = try XCTUnwrap(report["findings"] as? [[String: Any]])
        XCTAssertTrue(findings.contains { $0["code"] as? String == "e_ext_authority_key_identifier_missing" }, "\(findings)")
        XCTAssertFalse(findings.contains { $0["code"] as? String == "e_sub_cert_certificate_policies_missing" },
                       "a private root's chain gets no Baseline Requirements lint: \(findings)")
        let noHost = try evaluate(["--chain", path("leaf")])
        XCTAssertEqual(noHost.status, 64, noHost.stderr)
    }
}
