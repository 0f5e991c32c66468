import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe --config FILE --target NAME` and `trust evaluate --config FILE --target NAME` against loopback nginx:
/// URL, TLS policy, anchors, TLS settings and expectations come from the configuration.
final class ConfiguredTargetCLITests: XCTestCase {
    private var nginx: NginxServer!
    private var directory: TemporaryDirectory!
    private var config = ""
    private var pki: TestPKI { .shared }

    override func setUpWithError() throws {
        nginx = try NginxServer()
        directory = try TemporaryDirectory()
        let leafPin = "sha256/" + (try NetVigilTestSupport.run("/bin/sh", ["-c", "openssl x509 -in '\(pki.path("ca-leaf.crt"))' -pubkey -noout "
                                                       + "| openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"]))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let other = "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()
        config = try directory.write("netvigil.yml", """
            storage: { path: \(directory.path("state.sqlite")) }
            targets:
              - name: api
                url: https://localhost:\(nginx.tls13Port)/json
                expect: { json: ['$.status == "UP"'], body_contains: [UP], min_cert_validity: 72h }
                tls: { pins: ["\(leafPin)", "\(backup)"], ca: [\(pki.path("ca.crt"))], system_roots: false }
              - name: rotated
                url: https://localhost:\(nginx.tls13Port)/json
                tls: { pins: ["\(other)", "\(backup)"], ca: [\(pki.path("ca.crt"))], system_roots: false }
              - name: modern-only
                url: https://localhost:\(nginx.tls12Port)/json
                tls: { min_version: "1.3", ca: [\(pki.path("ca.crt"))] }
              - name: plain
                url: http://127.0.0.1:\(nginx.plainPort)/text
                expect: { body_contains: [goodbye] }
            """)
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
        directory = nil
    }

    private func netvigil(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(arguments)
    }

    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testProbeTakesTheTargetFromTheConfiguration() throws {
        let ok = try netvigil(["probe", "--config", config, "--target", "api", "--json", "--timeout", "5s"])
        XCTAssertEqual(ok.status, 0, ok.stderr + ok.stdout)
        let result = try object(ok.stdout)
        XCTAssertEqual(result["outcome"] as? String, "ok")
        XCTAssertEqual((result["tls"] as? [String: Any])?["version"] as? String, "TLSv1.3")
        XCTAssertEqual(result["url"] as? String, "https://localhost:\(nginx.tls13Port)/json")

        let rotated = try netvigil(["probe", "--config", config, "--target", "rotated", "--json"])
        XCTAssertEqual(rotated.status, 1, rotated.stdout)
        XCTAssertEqual((try object(rotated.stdout)["error"] as? [String: Any])?["kind"] as? String, "trust")
        let modern = try netvigil(["probe", "--config", config, "--target", "modern-only", "--json"])
        XCTAssertEqual(modern.status, 1, modern.stdout)
        let plain = try netvigil(["probe", "--config", config, "--target", "plain"])
        XCTAssertEqual(plain.status, 1, plain.stdout)
        XCTAssertTrue(plain.stdout.contains("goodbye"), plain.stdout)
    }

    func testProbeTargetUsageErrors() throws {
        let unknown = try netvigil(["probe", "--config", config, "--target", "nope"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr, "netvigil: --target: \(config) has no target \"nope\" (targets: api, rotated, modern-only, plain)\n")
        let noConfig = try netvigil(["probe", "--target", "api"])
        XCTAssertEqual(noConfig.status, 64)
        XCTAssertEqual(noConfig.stderr, "netvigil: --target needs --config FILE (the daemon's configuration)\n")
        let noTarget = try netvigil(["probe", "--config", config])
        XCTAssertEqual(noTarget.status, 64)
        let retyped = try netvigil(["probe", "--config", config, "--target", "api", "--header", "X-A: b"])
        XCTAssertEqual(retyped.status, 64)
        XCTAssertEqual(retyped.stderr, "netvigil: --header cannot be combined with --target: the target's configuration decides it\n")
        let url = try netvigil(["probe", "https://localhost:\(nginx.tls13Port)/json", "--config", config, "--target", "api"])
        XCTAssertEqual(url.status, 64)
        let pinned = try netvigil(["probe", "--config", config, "--target", "api", "--pin", "sha256/x"])
        XCTAssertEqual(pinned.status, 64)
        let badTimeout = try netvigil(["probe", "--config", config, "--target", "api", "--timeout", "0s"])
        XCTAssertEqual(badTimeout.status, 64)
        let broken = try directory.write("broken.yml", "targets: 3\n")
        XCTAssertEqual(try netvigil(["probe", "--config", broken, "--target", "api"]).status, 78)
        let none = try netvigil(["probe"])
        XCTAssertEqual(none.status, 64)
        XCTAssertEqual(none.stderr, "netvigil: give a URL, or --config FILE --target NAME\n")
    }

    func testTrustEvaluateJudgesASavedChainUnderTheTargetsPolicy() throws {
        let pem = try netvigil(["pin", "https://localhost:\(nginx.tls13Port)", "--pem"])
        XCTAssertEqual(pem.status, 0, pem.stderr)
        let chain = try directory.write("served.pem", pem.stdout)
        let trusted = try netvigil(["trust", "evaluate", "--config", config, "--target", "api", "--chain", chain])
        XCTAssertEqual(trusted.status, 0, trusted.stdout + trusted.stderr)
        XCTAssertTrue(trusted.stdout.hasPrefix("verdict: trusted"), trusted.stdout)
        XCTAssertTrue(trusted.stdout.contains("host: localhost"), trusted.stdout)
        XCTAssertTrue(trusted.stdout.contains("(matched)"), trusted.stdout)

        let rotated = try netvigil(["trust", "evaluate", "--config", config, "--target", "rotated", "--chain", chain, "--json"])
        XCTAssertEqual(rotated.status, 1, rotated.stdout)
        XCTAssertEqual((try object(rotated.stdout)["reason"] as? [String: Any])?["kind"] as? String, "publicKeyPinMismatch")
        let otherHost = try netvigil(["trust", "evaluate", "--config", config, "--target", "api", "--chain", chain,
                                      "--host", "evil.test"])
        XCTAssertEqual(otherHost.status, 1, otherHost.stdout)

        let plain = try netvigil(["trust", "evaluate", "--config", config, "--target", "plain", "--chain", chain])
        XCTAssertEqual(plain.status, 64)
        let retyped = try netvigil(["trust", "evaluate", "--config", config, "--target", "api", "--chain", chain, "--ca", chain])
        XCTAssertEqual(retyped.status, 64)
        XCTAssertEqual(retyped.stderr, "netvigil: --ca cannot be combined with --target: the target's configuration decides it\n")
        let noHost = try netvigil(["trust", "evaluate", "--chain", chain])
        XCTAssertEqual(noHost.status, 64)
    }
}
