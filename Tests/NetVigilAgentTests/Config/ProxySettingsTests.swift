import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `proxy:` at the top level and per target: forms, the default and `none`, credentials from a file (never shown),
/// `no_proxy`, and line-precise errors.
final class ProxySettingsTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "n.yml")
    }

    /// Loads each document and checks that its one-line error holds every fragment.
    private func expectErrors(_ cases: [(yaml: String, fragments: [String])], line: UInt = #line) {
        for (yaml, fragments) in cases {
            var message = "(loaded)"
            do { _ = try load(yaml) } catch { message = "\(error)" }
            for fragment in fragments where !message.contains(fragment) {
                XCTFail("\(message) lacks \(fragment)", line: line)
            }
        }
    }

    func testTopLevelDefaultTargetOverrideAndNone() throws {
        let directory = try TemporaryDirectory()
        let passwordFile = try directory.write("proxy.pass", "s3cret-proxy-pass\n")
        let configuration = try load("""
            proxy:
              url: http://proxy.example.com:3128
              user: probe
              password_file: \(passwordFile)
              no_proxy: [internal.example.com, 10.0.0.0/8]
            targets:
              - { name: api, url: "https://api.example.com/health" }
              - { name: own, url: "http://web.example.com/", proxy: "http://other.example.com:8080" }
              - { name: direct, url: "https://direct.example.com/", proxy: none }
            """)
        let targets = configuration.targets.targets
        let api = try XCTUnwrap(targets[0].configuration.proxy)
        XCTAssertEqual(api.url, "http://proxy.example.com:3128")
        XCTAssertEqual(api.credentials?.user, "probe")
        XCTAssertTrue(api.noProxy.matches("a.internal.example.com"))
        XCTAssertFalse(api.applies(to: "10.1.2.3"))
        XCTAssertEqual(targets[1].configuration.proxy?.url, "http://other.example.com:8080")
        XCTAssertNil(targets[1].configuration.proxy?.credentials, "a target's own proxy does not inherit credentials")
        XCTAssertNil(targets[2].configuration.proxy)
        for target in targets {
            XCTAssertFalse(target.fingerprint.contains("s3cret"), target.fingerprint)
            XCTAssertFalse("\(String(describing: target.configuration.proxy))".contains("s3cret"))
        }
    }

    func testAChangedTopLevelProxyChangesTheFingerprint() throws {
        let yaml = "targets: [{ name: api, url: \"https://api.example.com/\" }]"
        let before = try load("proxy: http://a.example:3128\n" + yaml).targets.targets[0]
        let same = try load("proxy: http://a.example:3128\n" + yaml).targets.targets[0]
        let after = try load("proxy: http://b.example:3128\n" + yaml).targets.targets[0]
        let none = try load(yaml).targets.targets[0]
        XCTAssertTrue(before.isEquivalent(to: same))
        XCTAssertFalse(before.isEquivalent(to: after))
        XCTAssertFalse(before.isEquivalent(to: none))
    }

    func testBadProxySettingsAreLocatedErrors() throws {
        expectErrors([
            ("proxy: https://proxy.example.com:3128", ["n.yml:1:8", "proxy:", "https:// proxies are not supported"]),
            ("proxy: socks5://proxy:1080", ["n.yml:1:8", "socks5:// proxies are not supported"]),
            ("proxy: not a url", ["n.yml:1:8", "expected a proxy URL like http://"]),
            ("proxy: http://user:pw@proxy:3128", ["credentials in the proxy URL are not accepted"]),
            ("proxy: { url: http://proxy:3128, usr: probe }", ["proxy.usr", "unknown key", "did you mean user?"]),
            ("proxy: { user: probe }", ["proxy.url", "required key is missing"]),
            ("proxy: { url: http://proxy:3128, user: probe }", ["proxy.user", "user needs password_file"]),
            ("proxy: { url: http://proxy:3128, password_file: /x }", ["proxy.password_file", "needs user"]),
            ("proxy: { url: http://proxy:3128, user: probe, password_file: /nonexistent/p }", ["cannot read password file"]),
            ("""
            targets:
              - name: api
                url: https://api.example.com/
                proxy:
                  url: http://proxy:3128
                  no_proxy: [ok.example, 10.0.0.0/40]
            """, ["n.yml:6:30", "targets[0].proxy.no_proxy[1]", "expected a host name suffix, an IP address or a CIDR block"]),
            ("targets: [{ name: a, url: \"http://a/\", proxy: \"https://p:1\" }]", ["targets[0].proxy", "https:// proxies"]),
        ])

        let directory = try TemporaryDirectory()
        let controls = try directory.write("bad.pass", "pass\u{07}word\n")
        expectErrors([
            ("proxy: { url: http://proxy:3128, user: probe, password_file: \(controls) }", ["proxy.password_file", "holds control characters"]),
            ("proxy: { url: http://proxy:3128, user: \"a:b\", password_file: \(controls) }", ["proxy.user"]),
        ])
    }
}
