import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil check-config` with `proxy:`: the summary names the proxy (never its password), a bad proxy is one
/// located line and exit 78.
extension CheckConfigCommandTests {
    func testProxyIsSummarizedAndABadOneIsALocatedError() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("proxy.pass", "summary-secret\n")
        let good = try directory.write("good.yml", """
            proxy: { url: "http://proxy.example.com:3128", user: probe, password_file: proxy.pass, no_proxy: [10.0.0.0/8] }
            targets:
              - { name: api, url: "https://api.example.com/" }
              - { name: direct, url: "https://direct.example.com/", proxy: none }
            """)
        let result = try ProcessRunner.run(["check-config", good])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("  proxy: http://proxy.example.com:3128 (user probe) no_proxy [10.0.0.0/8]"), result.stdout)
        XCTAssertTrue(result.stdout.contains("api: GET https://api.example.com/") && result.stdout.contains("via proxy http://proxy.example.com:3128"),
                      result.stdout)
        XCTAssertFalse(result.stdout.split(separator: "\n").first { $0.contains("direct:") }?.contains("via proxy") ?? true, result.stdout)
        XCTAssertFalse(result.stdout.contains("summary-secret"))

        let bad = try directory.write("bad.yml", "targets:\n  - name: api\n    url: https://api.example.com/\n    proxy: https://proxy:3128\n")
        let refused = try ProcessRunner.run(["check-config", bad])
        XCTAssertEqual(refused.status, 78)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("bad.yml:4:12: targets[0].proxy: https:// proxies are not supported"), refused.stderr)
    }
}
