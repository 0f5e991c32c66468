import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe URL --proxy URL [--proxy-user U --proxy-password-file F]` through a real squid.
final class ProxyCLITests: XCTestCase {
    private var nginx: NginxServer!
    private var pki: TestPKI { .shared }

    override func setUpWithError() throws {
        nginx = try NginxServer()
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
    }

    func testProbeThroughAnAuthenticatingProxy() throws {
        let squid = try SquidProcess(credentials: ("probe", "cli-proxy-pass"))
        defer { squid.stop() }
        let directory = try TemporaryDirectory()
        let right = try directory.write("right.pass", "cli-proxy-pass\n")
        let wrong = try directory.write("wrong.pass", "not-the-pass\n")
        let url = "https://localhost:\(nginx.tls13Port)/json"
        let base = ["probe", url, "--ca", pki.path("ca.crt"), "--no-system-roots", "--proxy", squid.url, "--proxy-user", "probe"]

        let ok = try ProcessRunner.run(base + ["--proxy-password-file", right, "--json"])
        XCTAssertEqual(ok.status, 0, ok.stderr + ok.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        XCTAssertNotNil((object?["timings_ms"] as? [String: Any])?["proxy"] as? Double, ok.stdout)
        XCTAssertTrue((object?["timings_ms"] as? [String: Any])?["connect"] is NSNull, ok.stdout)
        try SchemaValidator.assertValid(text: ok.stdout, schema: "probe-result")
        XCTAssertTrue(squid.accessLog(waitingFor: "CONNECT localhost:\(nginx.tls13Port)").contains("CONNECT localhost:\(nginx.tls13Port)"))

        let refused = try ProcessRunner.run(base + ["--proxy-password-file", wrong, "--json"])
        XCTAssertEqual(refused.status, 1, refused.stderr + refused.stdout)
        let failure = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        let error = failure?["error"] as? [String: Any]
        XCTAssertEqual(error?["kind"] as? String, "proxy")
        XCTAssertTrue((error?["message"] as? String)?.contains("407") ?? false, refused.stdout)
        try SchemaValidator.assertValid(text: refused.stdout, schema: "probe-result")
        let human = try ProcessRunner.run(base + ["--proxy-password-file", wrong])
        XCTAssertEqual(human.status, 1)
        for output in [refused.stdout, refused.stderr, human.stdout, human.stderr, ok.stdout] {
            XCTAssertFalse(output.contains("not-the-pass") || output.contains("cli-proxy-pass"), output)
        }
    }

    func testProxyUsageErrors() throws {
        let url = "https://localhost:\(nginx.tls13Port)/"
        for (arguments, fragment) in [(["--proxy", "https://proxy:3128"], "https:// proxies are not supported"),
                                      (["--proxy-user", "probe"], "--proxy-user needs --proxy URL"),
                                      (["--proxy", "http://proxy:3128", "--proxy-user", "probe"], "go together"),
                                      (["--proxy", "http://proxy:3128", "--no-proxy", "10.0.0.0/99"], "no_proxy entry")] {
            let result = try ProcessRunner.run(["probe", url] + arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(fragment), result.stderr)
        }
    }
}
