import Foundation
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilAgent

/// `include:` merges targets, sinks, TLS policies and labels from other files; a name defined twice names both places.
final class ConfigIncludeTests: XCTestCase {
    private func makeTree(_ files: [String: String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for (name, text) in files {
            let path = directory.path(name)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return directory
    }

    private func loadError(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigError? {
        do {
            _ = try AgentConfiguration.load(path: path)
            XCTFail("loaded", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error is ConfigError, "\(error)", file: file, line: line)
            return error as? ConfigError
        }
    }

    func testGlobMergesFilesInLexicalOrderAfterTheMainFile() throws {
        let tree = try makeTree([
            "etc/netvigil.yml": """
                include: [conf.d/*.yml]
                labels: { site: fra1 }
                alerts: { sinks: [{ name: pager, exec: { command: [/bin/true] } }] }
                targets:
                  - { name: main, url: "https://main.example.com/" }
                """,
            "etc/conf.d/20-web.yml": """
                targets:
                  - { name: web, url: "https://web.example.com/", alerts: [pager, team] }
                tls_policies:
                  - { hosts: [web.example.com], pins: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="] }
                """,
            "etc/conf.d/10-api.yml": """
                labels: { team: payments }
                alerts: { sinks: [{ name: team, webhook: { url: "http://127.0.0.1:9/hook" } }] }
                targets:
                  - { name: api, url: "https://api.example.com/", labels: { tier: "1" } }
                """,
            "etc/conf.d/notes.txt": "not yaml: [",
        ])
        let configuration = try AgentConfiguration.load(path: tree.path("etc/netvigil.yml"))
        XCTAssertEqual(configuration.targets.targets.map(\.name), ["main", "api", "web"])
        XCTAssertEqual(configuration.includedFiles, [tree.path("etc/conf.d/10-api.yml"), tree.path("etc/conf.d/20-web.yml")])
        XCTAssertEqual(configuration.alerts.sinkNames, ["pager", "team"])
        XCTAssertEqual(configuration.tlsPolicies.entries.count, 1)
        XCTAssertEqual(configuration.labels.dictionary, ["site": "fra1", "team": "payments"])
        XCTAssertEqual(configuration.targets.targets[1].labels.dictionary, ["site": "fra1", "team": "payments", "tier": "1"])
        XCTAssertEqual(configuration.targets.targets[2].alertSinks, ["pager", "team"])
    }

    func testDuplicateNamesAcrossFilesNameBothPlaces() throws {
        let tree = try makeTree([
            "netvigil.yml": """
                include: conf.d/*.yml
                labels: { site: fra1 }
                alerts: { sinks: [{ name: pager, exec: { command: [/bin/true] } }] }
                tls_policies:
                  - { hosts: [api.example.com], pins: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="] }
                targets:
                  - { name: api, url: "https://api.example.com/" }
                """,
            "conf.d/a.yml": """
                labels: { site: ams1 }
                alerts: { sinks: [{ name: pager, exec: { command: [/bin/false] } }] }
                tls_policies:
                  - { hosts: [api.example.com], pins: ["sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="] }
                targets:
                  - { name: api, url: "https://other.example.com/" }
                """,
        ])
        let main = tree.path("netvigil.yml")
        let included = tree.path("conf.d/a.yml")
        let error = try XCTUnwrap(loadError(main))
        let lines = "\(error)".split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, "\(error)")
        XCTAssertTrue(lines.contains("\(included):4:15: tls_policies[0].hosts[0]: host pattern \"api.example.com\" already has a policy (at \(main):5:15)"), "\(error)")
        XCTAssertTrue(lines.contains("\(included):2:27: alerts.sinks[0].name: sink name \"pager\" is used twice (first at \(main):3:27); names must be unique"), "\(error)")
        XCTAssertTrue(lines.contains("\(included):1:17: labels.site: label \"site\" is also set at \(main):2:17"), "\(error)")
        XCTAssertTrue(lines.contains("\(included):6:5: targets[0]: target name \"api\" is used twice (first at \(main):7:5)"), "\(error)")
    }

    func testMissingFilesEmptyGlobsAndForbiddenKeys() throws {
        let tree = try makeTree([
            "missing.yml": "include: [conf.d/none.yml]\n",
            "empty.yml": "include: [empty.d/*.yml]\ntargets: [{ name: a, url: \"https://a.example/\" }]\n",
            "nested.yml": "include: [nested.d/*.yml]\n",
            "nested.d/x.yml": "include: [../missing.yml]\nstorage: { path: x.sqlite }\n",
            "self.yml": "include: ['*.yml']\n",
        ])
        try FileManager.default.createDirectory(atPath: tree.path("empty.d"), withIntermediateDirectories: true)
        XCTAssertEqual(loadError(tree.path("missing.yml"))?.oneLine,
                       "\(tree.path("missing.yml")):1:11: include[0]: no such file: \(tree.path("conf.d/none.yml"))")
        XCTAssertEqual(try AgentConfiguration.load(path: tree.path("empty.yml")).targets.targets.count, 1,
                       "a glob that matches nothing includes nothing")
        let nested = try XCTUnwrap(loadError(tree.path("nested.yml")))
        XCTAssertTrue(nested.oneLine.hasPrefix("\(tree.path("nested.d/x.yml")):1:1: include: unknown key; expected one of: targets, tls_policies, alerts, labels"),
                      nested.oneLine)
        // A glob that matches the main file itself (and the others) does not read it twice.
        let selfError = try XCTUnwrap(loadError(tree.path("self.yml")))
        XCTAssertFalse(selfError.oneLine.hasPrefix(tree.path("self.yml")), "\(selfError)")
    }

    func testEveryIndependentErrorIsReportedUpToTwenty() throws {
        var yaml = "storage: { retension: 30d }\nfeed: { listen: nowhere }\ntargets:\n"
        for index in 0..<25 { yaml += "  - { name: t\(index), url: \"https://t.example/\", interval: never }\n" }
        let error = try XCTUnwrap({ () -> ConfigError? in
            do { _ = try AgentConfiguration(yaml: yaml, file: "n.yml"); return nil } catch { return error as? ConfigError }
        }())
        XCTAssertEqual(error.others.count, ConfigErrorCollector.limit - 1)
        XCTAssertEqual(error.omitted, 27 - ConfigErrorCollector.limit)
        let lines = "\(error)".split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, ConfigErrorCollector.limit + 1)
        XCTAssertTrue(lines[0].hasPrefix("n.yml:1:12: storage.retension: unknown key"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("n.yml:2:17: feed.listen:"), lines[1])
        XCTAssertEqual(lines[2], "n.yml:4:54: targets[0].interval: expected a duration like 30d")
        XCTAssertEqual(lines.last, "(7 more errors not shown)")
    }

    func testAReloadReadsTheIncludedFilesAgain() async throws {
        let tree = try makeTree([
            "netvigil.yml": "include: [conf.d/*.yml]\n",
            "conf.d/a.yml": "targets: [{ name: a, url: \"https://a.example/\" }]\n",
        ])
        final class Applied: Sendable { let names = Mutex<[String]>([]) }
        let applied = Applied()
        let reloader = ConfigReloader(path: tree.path("netvigil.yml"), logger: LogRecorder().logger(), metrics: nil) { configuration in
            applied.names.withLock { $0 = configuration.targets.targets.map(\.name) }
            return .init(added: [], changed: [], removed: [], needsRestart: [])
        }
        let first = await reloader.reload()
        XCTAssertNotNil(first)
        XCTAssertEqual(applied.names.withLock { $0 }, ["a"])
        try "targets: [{ name: b, url: \"https://b.example/\" }]\n".write(toFile: tree.path("conf.d/b.yml"), atomically: true, encoding: .utf8)
        let second = await reloader.reload()
        XCTAssertNotNil(second)
        XCTAssertEqual(applied.names.withLock { $0 }, ["a", "b"])
        try "targets: [{ name: a, url: \"https://c.example/\" }]\n".write(toFile: tree.path("conf.d/b.yml"), atomically: true, encoding: .utf8)
        let third = await reloader.reload()
        XCTAssertNil(third, "a duplicate name in a new file is refused")
    }
}
