import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// Hostile or broken configuration files: refused quickly, with one located line that never quotes the file.
final class HostileConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "netvigil.yml")
    }

    /// The error for `yaml`, or a failure when it loads.
    private func error(_ yaml: String, line: UInt = #line) -> String {
        do {
            _ = try load(yaml)
            XCTFail("loaded", line: line)
            return ""
        } catch {
            XCTAssertTrue(error is ConfigError, "\(type(of: error))", line: line)
            return "\(error)"
        }
    }

    /// Ten levels of ten aliases each: 10^10 nodes when expanded.
    static func aliasBomb(indent: String) -> String {
        var lines = ["\(indent)l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1..<10 {
            lines.append("\(indent)l\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n")
    }

    func testAliasBombsInParamsBodyAndKeysAreRefusedAtOnce() {
        let documents = [
            "targets:\n  - name: a\n    url: http://127.0.0.1:1/\n    params:\n" + Self.aliasBomb(indent: "      ") + "\n",
            "targets:\n  - name: a\n    url: http://127.0.0.1:1/\n    method: POST\n    body:\n      json:\n"
                + Self.aliasBomb(indent: "        ") + "\n",
            // An alias as a mapping key: Yams hashes keys while composing, so this must be stopped before it.
            "x:\n" + Self.aliasBomb(indent: "  ").replacingOccurrences(of: "  l9: &a9", with: "  ? &a9") + "\n  ? [*a9, *a9]\n  : 1\n",
        ]
        for yaml in documents {
            let start = Date()
            let text = error(yaml)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, "hang guard only; real figures are in the commit message")
            XCTAssertTrue(text.contains("YAML aliases expand to more than 100000 nodes (the limit)"), text)
            XCTAssertTrue(text.hasPrefix("netvigil.yml:"), text)
            XCTAssertNotNil(Int(text.split(separator: ":")[1]), "the error names the line: \(text)")
        }
    }

    func testAliasesWithinTheLimitStillWork() throws {
        let configuration = try load("""
            targets:
              - { name: a, url: "http://127.0.0.1:1/", headers: &common { X-Team: core, X-Env: prod } }
              - { name: b, url: "http://127.0.0.1:2/", headers: *common }
            """)
        XCTAssertEqual(configuration.targets.targets[1].request.header("X-Team"), "core")
    }

    func testDeepNestingMultipleDocumentsAndUndefinedAliasesAreLocated() {
        let deep = "targets:\n  - name: a\n    url: http://127.0.0.1:1/\n    params: " + String(repeating: "[", count: 40)
            + String(repeating: "]", count: 40) + "\n"
        XCTAssertTrue(error(deep).hasPrefix("netvigil.yml:4:"), error(deep))
        XCTAssertTrue(error(deep).contains("nest more than 32 levels deep (the limit)"), error(deep))
        XCTAssertEqual(error("log: { level: info }\n---\nlog: { level: debug }\n"),
                       "netvigil.yml:2:1: a configuration file holds one YAML document (found a second '---')")
        XCTAssertEqual(error("log: *nowhere\n"), "netvigil.yml:1:6: log: undefined YAML alias")
        // A stack-deep document never reaches Yams's recursive composer (libyaml's own nesting limit may speak first).
        XCTAssertTrue(error(String(repeating: "[", count: 100_000)).hasPrefix("netvigil.yml:1:"))
    }

    func testOversizedFileIsRefusedWithoutReadingItAll() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("big.yml")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        let megabyte = Data(String(repeating: "# padding\n", count: 104_858).utf8)
        for _ in 0..<50 { try handle.write(contentsOf: megabyte) }
        try handle.close()
        let start = Date()
        XCTAssertThrowsError(try AgentConfiguration.load(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): file is larger than 4 MiB (the limit)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testTooManyTargets() {
        let targets = (0...10_000).map { "  - { name: t\($0), url: 'http://h\($0).test/' }" }.joined(separator: "\n")
        XCTAssertEqual(error("targets:\n" + targets + "\n"), "netvigil.yml:10002:5: targets[10000]: at most 10000 targets (the limit)")
    }

    func testControlCharactersInHeadersAndCredentialsAreRefused() {
        let target = "targets:\n  - name: a\n    url: https://127.0.0.1:1/\n"
        XCTAssertEqual(error(target + "    headers: { X-Api-Key: \"SECRET-a\\0b\" }\n"),
                       "netvigil.yml:4:27: targets[0].headers.X-Api-Key: header values must not contain control characters (NUL, CR, LF, DEL, ...)")
        XCTAssertTrue(error(target + "    headers: { X-A: \"v\\r\\nInjected: 1\" }\n").contains("targets[0].headers.X-A: header values must not"))
        XCTAssertTrue(error(target + "    headers: { X-A: \"v\\x7F\" }\n").contains("control characters"))
        XCTAssertTrue(error(target + "    headers: { \"X A\": v }\n").contains("targets[0].headers.X A: header names use letters"))
        XCTAssertTrue(error(target + "    headers: { \"X-\\u0001\": v }\n").contains("header names use letters"))
        XCTAssertTrue(error(target + "    basic_auth: { user: u, password: \"SECRET\\tpw\\u0001\" }\n")
            .contains("targets[0].basic_auth.password: a basic-auth password must not contain control characters"))
        XCTAssertTrue(error("feed: { token: \"SECRET\\n\" }\n").contains("feed.token: the token must not contain control characters"))
        XCTAssertTrue(error("alerts: { sinks: [ { name: p, webhook: { url: 'http://127.0.0.1:9/', headers: { X-K: \"a\\0\" } } } ] }\n")
            .contains("header values must not contain control characters"))
        // A tab inside a header value is legal HTTP.
        XCTAssertNoThrow(try load(target + "    headers: { X-A: \"a\\tb\" }\n"))
    }

    func testHeaderLimits() {
        let many = (0..<65).map { "X-H\($0): v" }.joined(separator: ", ")
        XCTAssertTrue(error("targets:\n  - { name: a, url: 'http://h.test/', headers: { \(many) } }\n").contains("at most 64 headers"))
        let big = String(repeating: "v", count: 9000)
        XCTAssertTrue(error("targets:\n  - { name: a, url: 'http://h.test/', headers: { X-Big: \(big) } }\n").contains("at most 8192 bytes"))
    }

    func testUserInfoInTheTargetURLPointsToBasicAuth() {
        XCTAssertEqual(error("targets:\n  - { name: a, url: 'https://probe:SECRET-pw@h.test/' }\n"),
                       "netvigil.yml:2:21: targets[0].url: credentials in the URL are not accepted; use basic_auth: { user, password_file }")
    }

    func testRedirectSettings() throws {
        let configuration = try load("""
            targets:
              - { name: a, url: "https://h.test/", follow_redirects: { max: 3, allow_downgrade: true }, send_credentials_on_redirect: true }
              - { name: b, url: "https://h.test/", follow_redirects: 5 }
              - { name: c, url: "https://h.test/", follow_redirects: false }
              - { name: d, url: "https://h.test/" }
              - { name: e, url: "https://h.test/", follow_redirects: { allow_downgrade: false } }
            """)
        let settings = configuration.targets.targets.map {
            [$0.configuration.maxRedirects, $0.configuration.allowsDowngradeRedirects ? 1 : 0, $0.configuration.sendsCredentialsOnRedirect ? 1 : 0]
        }
        XCTAssertEqual(settings, [[3, 1, 1], [5, 0, 0], [0, 0, 0], [10, 0, 0], [10, 0, 0]])
        XCTAssertTrue(error("targets:\n  - { name: a, url: 'https://h.test/', follow_redirects: { max: 3, downgrade: true } }\n")
            .contains("targets[0].follow_redirects.downgrade: unknown key; expected one of: max, allow_downgrade"))
    }

    /// The reload path and `check-config` print `ConfigError.description`: none of these may quote the file.
    func testErrorsNeverQuoteTheDocument() async throws {
        let secrets = PlantedSecrets.configuration
        let broken = [
            secrets + "  - name: b\n    url: https://h.test/\n    url: https://h.test/x\n",  // duplicate key
            secrets + "log: { level: info, level: debug }\n",
            secrets + "  - name: c\n    url: [unclosed\n",  // syntax error
            secrets + "  - name: d\n    url: https://h.test/\n    basic_auth: \"probe:SECRET-inline\"\n",  // wrong type
            secrets + "  - name: e\n    url: \"https://h.test/SECRET-path\"\n    interval: SECRET-interval\n",
            secrets + "  - name: f\n    url: \"SECRET-not-a-url\"\n",
            secrets + "storage: { retention: SECRET-retention }\n",
        ]
        for yaml in broken {
            let text = error(yaml)
            XCTAssertFalse(text.contains("SECRET"), text)
            XCTAssertFalse(text.contains("\n"), text)
            XCTAssertTrue(text.hasPrefix("netvigil.yml:"), text)
        }
        XCTAssertEqual(error(broken[0]), "netvigil.yml:12:5: targets[1].url: duplicate key")

        // A refused reload logs the same line and nothing else from the file.
        let directory = try TemporaryDirectory()
        let logs = LogRecorder()
        for (index, yaml) in broken.enumerated() {
            let path = directory.path("reload-\(index).yml")
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            let reloader = ConfigReloader(path: path, logger: logs.logger()) { _ in
                XCTFail("a broken file was applied")
                return .init(added: [], changed: [], removed: [], needsRestart: [])
            }
            let summary = await reloader.reload()
            XCTAssertNil(summary)
        }
        XCTAssertEqual(logs.all.count, broken.count)
        for entry in logs.all {
            let text = entry.message + " " + entry.metadata.values.joined(separator: " ")
            XCTAssertFalse(text.contains("SECRET"), text)
        }
    }
}
