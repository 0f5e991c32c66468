import XCTest
@testable import NetVigilAgent

final class ConfigurationTests: XCTestCase {
    func testEmbeddedConfigurationGivesDefaults() throws {
        let configuration = try AgentConfiguration(yaml: AgentConfiguration.embeddedYAML, file: "<embedded>")
        XCTAssertEqual(configuration.storage.path, ".netvigil/netvigil.sqlite")
        XCTAssertEqual(configuration.storage.retention, .seconds(30 * 86_400))
        XCTAssertEqual(configuration.feed.listen, ListenAddress(host: "127.0.0.1", port: 9337))
        XCTAssertNil(configuration.feed.token)
        XCTAssertEqual(configuration.log.level, .info)
    }

    func testEmptyDocumentGivesDefaults() throws {
        let configuration = try AgentConfiguration(yaml: "", file: "empty.yml")
        XCTAssertEqual(configuration.storage, StorageSection())
    }

    func testFullDocument() throws {
        let yaml = """
            storage:
              path: /var/lib/netvigil/history.sqlite
              retention: 7d
            feed:
              listen: "[::1]:9000"
              token: s3cret
            log:
              level: debug
            """
        let configuration = try AgentConfiguration(yaml: yaml, file: "netvigil.yml")
        XCTAssertEqual(configuration.storage.path, "/var/lib/netvigil/history.sqlite")
        XCTAssertEqual(configuration.storage.retention, .seconds(7 * 86_400))
        XCTAssertEqual(configuration.feed.listen, ListenAddress(host: "::1", port: 9000))
        XCTAssertEqual(configuration.feed.token?.value, "s3cret")
        XCTAssertEqual("\(configuration.feed.token!)", "<redacted>")
        XCTAssertEqual(configuration.log.level, .debug)
    }

    func testTypoedKeyIsAnErrorWithLocationAndSuggestion() {
        let yaml = """
            storage:
              path: x.sqlite
              retension: 30d
            """
        XCTAssertThrowsError(try AgentConfiguration(yaml: yaml, file: "netvigil.yml")) { error in
            let error = error as! ConfigError
            XCTAssertEqual(error.line, 3)
            XCTAssertEqual(error.column, 3)
            XCTAssertEqual(error.keyPath, "storage.retension")
            XCTAssertTrue(error.description.hasPrefix("netvigil.yml:3:3: storage.retension: unknown key (did you mean retention?)"),
                          error.description)
        }
    }

    func testUnknownSectionIsAnError() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "storge:\n  path: x\n", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("n.yml:1:1: storge: unknown key (did you mean storage?)"), "\(error)")
        }
    }

    func testBadDurationNamesKeyLineAndColumn() {
        let yaml = """
            # comment
            log: { level: info }
            storage:
              path: x.sqlite
              retention: forever
            """
        XCTAssertThrowsError(try AgentConfiguration(yaml: yaml, file: "netvigil.yml")) { error in
            XCTAssertEqual("\(error)", "netvigil.yml:5:14: storage.retention: expected a duration like 30d")
        }
    }

    func testDurations() {
        XCTAssertEqual(ConfigDuration.parse("500ms"), .milliseconds(500))
        XCTAssertEqual(ConfigDuration.parse("10s"), .seconds(10))
        XCTAssertEqual(ConfigDuration.parse("5m"), .seconds(300))
        XCTAssertEqual(ConfigDuration.parse("6h"), .seconds(6 * 3_600))
        XCTAssertEqual(ConfigDuration.parse("30d"), .seconds(30 * 86_400))
        XCTAssertEqual(ConfigDuration.parse("1h30m"), .seconds(5_400))
        for bad in ["", "10", "s", "10x", "-5s", "1.5h", "forever", "99999999999999999999d"] {
            XCTAssertNil(ConfigDuration.parse(bad), bad)
        }
        XCTAssertEqual(ConfigDuration.format(.seconds(30 * 86_400)), "30d")
        XCTAssertEqual(ConfigDuration.format(.milliseconds(1_500)), "1500ms")
    }

    func testRetentionMinimum() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "storage: { retention: 10s }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("storage.retention: must be at least 1m"), "\(error)")
        }
    }

    func testWrongTypes() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "storage: [a, b]", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("n.yml:1:10: storage: expected a mapping"), "\(error)")
        }
        XCTAssertThrowsError(try AgentConfiguration(yaml: "log: { level: loud }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("log.level: expected one of trace, debug, info"), "\(error)")
        }
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { listen: localhost }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("feed.listen: expected HOST:PORT"), "\(error)")
        }
        XCTAssertThrowsError(try AgentConfiguration(yaml: "- just\n- a list\n", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("n.yml:1:1: expected a mapping"), "\(error)")
        }
    }

    func testYAMLSyntaxErrorIsLocated() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "storage:\n  path: [unclosed\n", file: "n.yml")) { error in
            let error = error as! ConfigError
            XCTAssertNotNil(error.line)
            XCTAssertTrue(error.description.contains("YAML"), error.description)
        }
    }

    func testDuplicateKeyIsAnError() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "log: { level: info, level: debug }", file: "n.yml")) { error in
            XCTAssertEqual("\(error)", "n.yml:1:21: log.level: duplicate key")
        }
    }

    func testTokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nv-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenPath = directory.appendingPathComponent("token").path
        try "abc123\n".write(toFile: tokenPath, atomically: true, encoding: .utf8)
        let configuration = try AgentConfiguration(yaml: "feed: { token_file: \(tokenPath) }", file: "n.yml")
        XCTAssertEqual(configuration.feed.token?.value, "abc123")

        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { token_file: \(directory.path)/missing }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("feed.token_file: cannot read token file"), "\(error)")
        }
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { token: a, token_file: \(tokenPath) }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("set either token or token_file"), "\(error)")
        }
    }

    func testReachabilityTargets() throws {
        let configuration = try AgentConfiguration(yaml: "reachability: { targets: [192.0.2.10, \"2001:db8::1\", api.example.com, default] }", file: "n.yml")
        XCTAssertEqual(configuration.reachability.targets.map(\.description), ["default", "192.0.2.10", "2001:db8::1", "api.example.com"])
        XCTAssertEqual(try AgentConfiguration(yaml: "", file: "n.yml").reachability.targets.map(\.description), ["default"])
        XCTAssertThrowsError(try AgentConfiguration(yaml: "reachability:\n  targets: [\"bad host!\"]\n", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("n.yml:2:13: reachability.targets[0]: expected default, an IP address or a host name"), "\(error)")
        }
    }

    func testListenAddressParsing() {
        XCTAssertEqual(ListenAddress(parsing: "0.0.0.0:80"), ListenAddress(host: "0.0.0.0", port: 80))
        XCTAssertEqual(ListenAddress(parsing: "[::]:9337"), ListenAddress(host: "::", port: 9337))
        XCTAssertNil(ListenAddress(parsing: "::1:80"))
        XCTAssertNil(ListenAddress(parsing: "host:99999"))
        XCTAssertNil(ListenAddress(parsing: ":80"))
    }

    func testLoadMissingFile() {
        XCTAssertThrowsError(try AgentConfiguration.load(path: "/nonexistent/netvigil.yml")) { error in
            XCTAssertEqual("\(error)", "/nonexistent/netvigil.yml: no such file")
        }
    }

    func testExampleConfigurationInRepositoryIsValid() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = root.appendingPathComponent("deploy/netvigil.example.yml").path
        _ = try AgentConfiguration.load(path: example)
    }
}
