import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe` and `netvigil pin https://...` against loopback nginx.
final class ProbeCLITests: XCTestCase {
    private var nginx: NginxServer!
    private var pki: TestPKI { .shared }

    override func setUpWithError() throws {
        nginx = try NginxServer()
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
    }

    private func netvigil(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(arguments)
    }

    func testProbeJSONOutputAndExitCodes() throws {
        let ok = try netvigil(["probe", "https://localhost:\(nginx.tls12Port)/json", "--ca", pki.path("ca.crt"), "--no-system-roots",
                               "--expect-json", "$.status == UP", "--min-cert-validity", "72h", "--json"])
        XCTAssertEqual(ok.status, 0, ok.stderr + ok.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["outcome"] as? String, "ok")
        XCTAssertEqual((object?["http"] as? [String: Any])?["status"] as? Int, 200)
        XCTAssertEqual((object?["tls"] as? [String: Any])?["version"] as? String, "TLSv1.2")
        XCTAssertNotNil((object?["timings_ms"] as? [String: Any])?["total"] as? Double)
        try assertMatchesSchema(ok.stdout)

        let failed = try netvigil(["probe", "https://localhost:\(nginx.tls12Port)/json", "--ca", pki.path("other.crt"),
                                   "--no-system-roots", "--json"])
        XCTAssertEqual(failed.status, 1)
        let failure = try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((failure?["error"] as? [String: Any])?["kind"] as? String, "trust")
        try assertMatchesSchema(failed.stdout)
        let refused = try netvigil(["probe", "http://127.0.0.1:\(ProcessRunner.freePort())/", "--json"])
        XCTAssertEqual(refused.status, 1)
        try assertMatchesSchema(refused.stdout)
        let redirected = try netvigil(["probe", "https://localhost:\(nginx.tls13Port)/redirect", "--ca", pki.path("ca.crt"),
                                       "--no-system-roots", "--expect-status", "204", "--json"])
        XCTAssertEqual(redirected.status, 1, redirected.stdout)
        try assertMatchesSchema(redirected.stdout)

        let usage = try netvigil(["probe", "https://localhost:\(nginx.tls12Port)/", "--timeout", "soon"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertEqual(usage.stderr.split(separator: "\n").count, 1, usage.stderr)
        let badJSON = try netvigil(["probe", "https://localhost:\(nginx.tls12Port)/", "--method", "POST", "--json-body", "{x"])
        XCTAssertEqual(badJSON.status, 64)
    }

    /// `probe --json` output validates against deploy/schemas/probe-result.schema.json (python3 jsonschema).
    private func assertMatchesSchema(_ output: String, line: UInt = #line) throws {
        try SchemaValidator.assertValid(text: output, schema: "probe-result", line: line)
    }

    func testHumanOutputNeverPrintsHeaderValues() throws {
        let result = try netvigil(["probe", "http://127.0.0.1:\(nginx.plainPort)/text", "--header", "X-Secret: hunter2",
                                   "--basic-auth", "user:hunter3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("OK 200"), result.stdout)
        XCTAssertFalse((result.stdout + result.stderr).contains("hunter"))
    }

    /// The phase lines keep their columns (`%-11s%9.3f ms`): the name padded to 11 characters, the time with three
    /// decimals right-aligned in nine.
    func testHumanOutputAlignsThePhaseTimings() throws {
        let result = try netvigil(["probe", "https://localhost:\(nginx.tls13Port)/text", "--ca", pki.path("ca.crt"), "--no-system-roots"])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        let phases = ["resolve", "connect", "tls", "processing", "transfer", "total"]
        let lines = result.stdout.split(separator: "\n").filter { line in phases.contains { line.hasPrefix($0 + " ") } }
        XCTAssertEqual(lines.map { String($0.prefix { $0 != " " }) }, phases, result.stdout)
        let pattern = try NSRegularExpression(pattern: "^[a-z]+ +[0-9]+\\.[0-9]{3} ms$")
        for line in lines.map(String.init) {
            XCTAssertEqual(line.count, 23, line)
            XCTAssertNotNil(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
            XCTAssertEqual(line.dropFirst(19).first?.isNumber, true, line)  // the time ends in column 20
        }
    }

    func testPinPrintsTheServedChainEvenWhenUntrusted() throws {
        let result = try netvigil(["pin", "https://localhost:\(nginx.tls13Port)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let leafPin = try NetVigilTestSupport.run("/bin/sh", ["-c", "openssl x509 -in '\(pki.path("ca-leaf.crt"))' -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(result.stdout.contains("sha256/" + leafPin), result.stdout)
        XCTAssertTrue(result.stderr.contains("untrusted"), result.stderr)
        let refused = try netvigil(["pin", "https://127.0.0.1:\(freePort())"])
        XCTAssertEqual(refused.status, 1)
    }

    func testPinPEMPrintsTheServedChainForTrustEvaluate() throws {
        let result = try netvigil(["pin", "https://localhost:\(nginx.tls13Port)", "--pem", "--ca", pki.path("ca.crt")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("-----BEGIN CERTIFICATE-----\n"), result.stdout)
        let chain = pki.path("served-chain.pem")
        try result.stdout.write(toFile: chain, atomically: true, encoding: .utf8)
        let evaluated = try netvigil(["trust", "evaluate", "--chain", chain, "--host", "localhost", "--ca", pki.path("ca.crt"),
                                      "--no-system-roots"])
        XCTAssertEqual(evaluated.status, 0, evaluated.stdout + evaluated.stderr)
        XCTAssertTrue(evaluated.stdout.hasPrefix("verdict: trusted"), evaluated.stdout)
    }
}
