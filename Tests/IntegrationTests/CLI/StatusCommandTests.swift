import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil status` against a real `netvigil run` probing a loopback HTTP server.
final class StatusCommandTests: XCTestCase {
    private static let token = "status-token-7f3a"

    /// Starts a process whose output goes to `log`; killed at teardown.
    func start(_ executable: URL, _ arguments: [String], in directory: TemporaryDirectory, log: String) throws -> Process {
        let path = directory.path(log)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try process.run()
        addTeardownBlock {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        return process
    }

    /// A daemon with one target (`web`, probed every second) plus `extraTargets` (YAML list items) and a token; returns
    /// the feed URL, the token file and the configuration file.
    private func startDaemon(_ directory: TemporaryDirectory, extraTargets: String = "")
        throws -> (feed: String, tokenFile: String, config: String)
    {
        let webPort = ProcessRunner.freePort()
        _ = try directory.write("index.html", "hello\n")
        _ = try start(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "http.server", "\(webPort)", "--bind", "127.0.0.1"],
                      in: directory, log: "web.log")
        let port = ProcessRunner.freePort()
        let tokenFile = try directory.write("token", Self.token + "\n")
        let config = try directory.write("netvigil.yml", """
            storage: { path: n.sqlite }
            feed: { listen: 127.0.0.1:\(port), token_file: \(tokenFile) }
            reachability: { targets: [127.0.0.1] }
            targets:
              - { name: web, url: "http://127.0.0.1:\(webPort)/", interval: 1s }
            \(extraTargets)
            """)
        let daemon = try start(ProcessRunner.binary, ["run", "--config", config], in: directory, log: "daemon.log")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            XCTAssertTrue(daemon.isRunning, (try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)) ?? "")
            if !daemon.isRunning { break }
            if let (status, _) = try? ProcessRunner.curl("http://127.0.0.1:\(port)/healthz"), status == 200 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return ("http://127.0.0.1:\(port)", tokenFile, config)
    }

    func testTableAndJSONFromARunningDaemon() throws {
        let directory = try TemporaryDirectory()
        let (feed, tokenFile, _) = try startDaemon(directory)

        // Wait until `web`'s row says up (not for "200" anywhere: the feed's port may hold it).
        func webProbed(_ stdout: String) -> Bool {
            stdout.split(separator: "\n").contains { $0.hasPrefix("web ") && $0.split(separator: " ").dropFirst().first == "up" }
        }
        var result = try ProcessRunner.run(["status", "--feed", feed, "--token-file", tokenFile])
        let deadline = Date().addingTimeInterval(20)
        while !webProbed(result.stdout) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            result = try ProcessRunner.run(["status", "--feed", feed, "--token-file", tokenFile])
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let lines = result.stdout.components(separatedBy: "\n")
        XCTAssertTrue(lines[0].hasPrefix("netvigil 0.") && lines[0].contains("at \(feed), up "), result.stdout)
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("TARGET") }, result.stdout)
        XCTAssertEqual(header.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "),
                       "TARGET STATUS LAST PROBE HTTP PIN DAYS LEFT ALERTS REASON")
        let row = try XCTUnwrap(lines.first { $0.hasPrefix("web ") }, result.stdout)
        let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        XCTAssertEqual(cells[1], "up", row)
        XCTAssertTrue(row.contains(" ago") || row.contains("just now"), row)
        XCTAssertEqual(cells.suffix(5), ["200", "-", "-", "-", "-"], "http, pin (plain HTTP), days left, alerts, reason: \(row)")
        // Columns line up under the header.
        XCTAssertEqual(row.range(of: "200").map { row.distance(from: row.startIndex, to: $0.lowerBound) },
                       header.range(of: "HTTP").map { header.distance(from: header.startIndex, to: $0.lowerBound) })
        XCTAssertTrue(lines.contains { $0.hasPrefix("reachability default: ") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("reachability 127.0.0.1: ReachableViaWiFi via lo, loopback [") }, result.stdout)
        XCTAssertFalse(result.stdout.contains(Self.token))

        let json = try ProcessRunner.run(["status", "--feed", feed + "/", "--token-file", tokenFile, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stdout.filter { $0 == "\n" }.count, 1, "the document as sent, one line")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertNotNil(document["version"] as? String)
        let targets = try XCTUnwrap(document["targets"] as? [[String: Any]])
        XCTAssertEqual(targets.first?["name"] as? String, "web")
    }

    func testErrorsAreOneLineWithDistinctExitCodes() throws {
        let directory = try TemporaryDirectory()
        let (feed, tokenFile, _) = try startDaemon(directory)
        let wrong = try directory.write("wrong", "not-the-token\n")
        let empty = try directory.write("empty", "\n")
        let nobody = "http://127.0.0.1:\(ProcessRunner.freePort())"
        let cases: [([String], Int32, String)] = [
            (["status", "--feed", feed], 77, "the feed at \(feed) requires a bearer token: pass --token-file"),
            (["status", "--feed", feed, "--token-file", wrong], 77, "the feed at \(feed) rejected the token from \(wrong)"),
            (["status", "--feed", nobody, "--token-file", tokenFile], 74, "cannot reach the feed at \(nobody): connection refused"),
            (["status", "--feed", "ftp://example"], 64, "--feed: expected a URL like http://127.0.0.1:9337"),
            (["status", "--feed", feed, "--token-file", directory.path("missing")], 66, "--token-file: cannot read"),
            (["status", "--feed", feed, "--token-file", empty], 66, "is empty"),
            (["status", "--feed", feed + "/nothing-here", "--token-file", tokenFile], 74, "answered HTTP 404"),
        ]
        for (arguments, status, message) in cases {
            let result = try ProcessRunner.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("netvigil: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertFalse(result.stderr.contains(Self.token), "the token is never printed")
        }
    }

    func testConfigSuppliesFeedAndTokenAndCheckFailsOnADownTarget() throws {
        let directory = try TemporaryDirectory()
        let refused = ProcessRunner.freePort()
        let (_, _, config) = try startDaemon(directory, extraTargets: """
              - { name: gone, url: "http://127.0.0.1:\(refused)/", interval: 1s }
            """)
        var result = try ProcessRunner.run(["status", "--config", config, "--check", "--timeout", "2s"])
        let deadline = Date().addingTimeInterval(20)
        while !(result.stdout.contains("connection refused") && result.stdout.contains(" 200 ")) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            result = try ProcessRunner.run(["status", "--config", config, "--check", "--timeout", "2s"])
        }
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("netvigil: check failed: 1 target down (gone)"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        let row = try XCTUnwrap(result.stdout.components(separatedBy: "\n").first { $0.hasPrefix("gone ") }, result.stdout)
        XCTAssertTrue(row.hasSuffix("  connection refused"), row)
        XCTAssertFalse(result.stdout.contains(Self.token))

        let plain = try ProcessRunner.run(["status", "--config", config])
        XCTAssertEqual(plain.status, 0, "without --check a down target is not a failure: \(plain.stderr)")
        let overridden = try ProcessRunner.run(["status", "--config", config, "--feed", "http://127.0.0.1:\(refused)"])
        XCTAssertEqual(overridden.status, 74, "--feed wins over the configuration: \(overridden.stderr)")
        let wrong = try directory.write("wrong", "not-the-token\n")
        let wrongToken = try ProcessRunner.run(["status", "--config", config, "--token-file", wrong])
        XCTAssertEqual(wrongToken.status, 77, "--token-file wins over the configuration")
        let badTimeout = try ProcessRunner.run(["status", "--config", config, "--timeout", "soon"])
        XCTAssertEqual(badTimeout.status, 64)
        XCTAssertEqual(badTimeout.stderr, "netvigil: --timeout: expected a positive duration such as 2s, 500ms or 1m, got \"soon\"\n")
        let broken = try directory.write("broken.yml", "feed: { listen: nowhere }\n")
        XCTAssertEqual(try ProcessRunner.run(["status", "--config", broken]).status, 78)
    }
}
