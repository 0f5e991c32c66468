import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe --http-version` through the binary against nginx with HTTP/2 and an HTTP/1.1-only nginx.
final class HTTP2CLITests: XCTestCase {
    private var pki: TestPKI { .shared }

    func testHTTPVersionOptionJSONAndUsageErrors() throws {
        let h2 = try NginxHTTP2Server()
        defer { h2.stop() }
        let plain = try NginxServer()
        defer { plain.stop() }
        let trust = ["--ca", pki.path("ca.crt"), "--no-system-roots", "--json"]

        let ok = try ProcessRunner.run(["probe", "https://localhost:\(h2.port)/json"] + trust)
        XCTAssertEqual(ok.status, 0, ok.stderr + ok.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((object?["http"] as? [String: Any])?["version"] as? String, "HTTP/2")
        XCTAssertEqual((object?["tls"] as? [String: Any])?["alpn"] as? String, "h2")
        try SchemaValidator.assertValid(text: ok.stdout, schema: "probe-result")

        let old = try ProcessRunner.run(["probe", "https://localhost:\(h2.port)/json", "--http-version", "1.1"] + trust)
        XCTAssertEqual(old.status, 0, old.stderr + old.stdout)
        let oldObject = try JSONSerialization.jsonObject(with: Data(old.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((oldObject?["http"] as? [String: Any])?["version"] as? String, "HTTP/1.1")

        let refused = try ProcessRunner.run(["probe", "https://localhost:\(plain.tls13Port)/json", "--http-version", "2"] + trust)
        XCTAssertEqual(refused.status, 1, refused.stdout)
        let failure = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((failure?["error"] as? [String: Any])?["kind"] as? String, "http2Unavailable")
        try SchemaValidator.assertValid(text: refused.stdout, schema: "probe-result")

        for arguments in [["https://localhost:\(h2.port)/", "--http-version", "3"],
                          ["http://127.0.0.1:\(plain.plainPort)/", "--http-version", "2"]] {
            let usage = try ProcessRunner.run(["probe"] + arguments)
            XCTAssertEqual(usage.status, 64, usage.stderr)
            XCTAssertEqual(usage.stderr.split(separator: "\n").count, 1, usage.stderr)
            XCTAssertTrue(usage.stderr.contains("--http-version"), usage.stderr)
        }
    }
}
