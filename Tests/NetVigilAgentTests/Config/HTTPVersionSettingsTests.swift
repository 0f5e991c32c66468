import NetVigilProber
import XCTest
@testable import NetVigilAgent

/// `http_version:` per target: the default `auto`, `"1.1"` and `"2"` (quoted or not), and line-precise errors.
final class HTTPVersionSettingsTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "n.yml")
    }

    func testValuesAndDefault() throws {
        let targets = try load("""
            targets:
              - { name: auto, url: "https://a.example.com/" }
              - { name: one, url: "https://a.example.com/", http_version: 1.1 }
              - { name: two, url: "https://a.example.com/", http_version: "2" }
              - { name: plain, url: "http://a.example.com/", http_version: "1.1" }
            """).targets.targets
        XCTAssertEqual(targets.map(\.configuration.httpVersion), [.auto, .http1_1, .http2, .http1_1])
        XCTAssertEqual(targets[0].configuration.tlsConfiguration(for: "a.example.com").alpnProtocols, ["h2", "http/1.1"])
        XCTAssertEqual(targets[1].configuration.tlsConfiguration(for: "a.example.com").alpnProtocols, ["http/1.1"])
        XCTAssertEqual(targets[2].configuration.tlsConfiguration(for: "a.example.com").alpnProtocols, ["h2", "http/1.1"])
    }

    func testBadValuesAreLocatedErrors() {
        let cases: [(String, [String])] = [
            ("targets: [{ name: a, url: \"https://a.example.com/\", http_version: 3 }]",
             ["n.yml:1:", "expected one of auto, 1.1, 2"]),
            ("targets: [{ name: a, url: \"http://a.example.com/\", http_version: 2 }]",
             ["n.yml:1:", "http_version \"2\" needs an https:// URL"]),
            ("targets: [{ name: a, url: \"https://a.example.com/\", http_versoin: 2 }]", ["unknown key", "http_version"]),
        ]
        for (yaml, fragments) in cases {
            var message = "(loaded)"
            do { _ = try load(yaml) } catch { message = "\(error)" }
            for fragment in fragments where !message.contains(fragment) {
                XCTFail("\(message) lacks \(fragment)")
            }
        }
    }
}
