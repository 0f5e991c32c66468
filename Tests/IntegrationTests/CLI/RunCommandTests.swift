import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest

/// Starts the real daemon as a process and talks to it over HTTP.
final class RunCommandTests: XCTestCase {
    private func startDaemon(config: String, in directory: TemporaryDirectory, environment: [String: String]? = nil,
                             binary: String = ProcessRunner.binary.path, launcher: [String] = []) throws -> (Process, String) {
        let (process, log) = try DaemonProcess.start(config: config, in: directory, environment: environment,
                                                     binary: binary, launcher: launcher)
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        return (process, log)
    }

    private func waitForHealth(port: Int, process: Process, log: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning {
                XCTFail("daemon exited early: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
                return
            }
            if let (status, _) = try? ProcessRunner.curl("http://127.0.0.1:\(port)/healthz"), status == 200 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("daemon not healthy within 30 s")
    }

    private func stop(_ process: Process, signal: Int32 = SIGTERM) -> TimeInterval {
        let start = Date()
        kill(process.processIdentifier, signal)
        while process.isRunning && Date().timeIntervalSince(start) < 10 { Thread.sleep(forTimeInterval: 0.02) }
        return Date().timeIntervalSince(start)
    }

    func testDaemonServesFeedEnforcesTokenAndStopsCleanly() throws {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let tokenFile = try directory.write("token", "daemon-token-123\n")
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite, retention: 1d }
            feed: { listen: 127.0.0.1:\(port), token_file: \(tokenFile) }
            log: { level: info }
            reachability: { targets: [127.0.0.1] }
            """)
        let (process, log) = try startDaemon(config: config, in: directory)
        try waitForHealth(port: port, process: process, log: log)

        let (unauthorized, _) = try ProcessRunner.curl("http://127.0.0.1:\(port)/v1/status")
        XCTAssertEqual(unauthorized, 401)
        let (status, body) = try ProcessRunner.curl("http://127.0.0.1:\(port)/v1/status",
                                                    headers: ["Authorization: Bearer daemon-token-123"])
        XCTAssertEqual(status, 200, body)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        XCTAssertNotNil(json["version"] as? String)
        XCTAssertNotNil(json["store"] as? [String: Any])
        let reachability = try XCTUnwrap(json["reachability"] as? [[String: Any]])
        XCTAssertEqual(reachability.map { $0["target"] as? String }, ["default", "127.0.0.1"])
        let loopback = reachability[1]
        XCTAssertEqual(loopback["status"] as? String, "ReachableViaWiFi", "\(loopback)")
        XCTAssertTrue((loopback["flags"] as? [String] ?? []).contains("isLocalAddress"), "\(loopback)")

        let mode = try FileManager.default.attributesOfItem(atPath: directory.path("state/netvigil.sqlite"))[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)

        let elapsed = stop(process)
        XCTAssertFalse(process.isRunning)
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertLessThan(elapsed, 5)
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(logText.contains("feed listening"), logText)
        XCTAssertTrue(logText.contains("netvigil stopped"), logText)
        XCTAssertFalse(logText.contains("daemon-token-123"), "the token must never be logged")
        // No lost rows: every reachability change the daemon saw is in the store after SIGTERM.
        let export = try ProcessRunner.run(["export", "--db", directory.path("state/netvigil.sqlite"), "--kind", "reachability",
                                            "--format", "ndjson"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let rows = export.stdout.split(separator: "\n").dropFirst()
        XCTAssertTrue(rows.contains { $0.contains("\"target\":\"default\"") }, export.stdout)
        XCTAssertTrue(rows.contains { $0.contains("\"target\":\"127.0.0.1\"") && $0.contains("ReachableViaWiFi") }, export.stdout)
        XCTAssertEqual(rows.count, logText.components(separatedBy: "reachability changed").count - 1,
                       "one stored row per logged change")
        for line in logText.split(separator: "\n") {
            XCTAssertFalse(line.contains("\u{1B}["), "no colours when not a tty")
        }
    }

    func testSIGINTAlsoStopsWithExit0() throws {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let config = try directory.write("n.yml", "storage: { path: n.sqlite }\nfeed: { listen: 127.0.0.1:\(port) }\n")
        let (process, log) = try startDaemon(config: config, in: directory)
        try waitForHealth(port: port, process: process, log: log)
        let (status, _) = try ProcessRunner.curl("http://127.0.0.1:\(port)/v1/status")
        XCTAssertEqual(status, 200, "no token configured: open")
        XCTAssertLessThan(stop(process, signal: SIGINT), 5)
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testBadConfigurationAndBusyPortFailWithOneLine() throws {
        let directory = try TemporaryDirectory()
        let bad = try directory.write("bad.yml", "feed: { listen: nowhere }\n")
        let result = try ProcessRunner.run(["run", "--config", bad], currentDirectory: directory.url, timeout: 20)
        XCTAssertEqual(result.status, 78)
        XCTAssertTrue(result.stderr.hasPrefix("netvigil: \(bad):1:17: feed.listen:"), result.stderr)

        let unwritable = try directory.write("store.yml", "storage: { path: /proc/netvigil/n.sqlite }\n")
        let storeResult = try ProcessRunner.run(["run", "--config", unwritable], currentDirectory: directory.url, timeout: 20)
        XCTAssertEqual(storeResult.status, 74, storeResult.stderr)
        XCTAssertTrue(storeResult.stderr.contains("storage:"), storeResult.stderr)

        // Occupy a port, then ask the daemon to bind it.
        let port = ProcessRunner.freePort()
        let holder = try directory.write("holder.yml", "storage: { path: a.sqlite }\nfeed: { listen: 127.0.0.1:\(port) }\n")
        let (first, log) = try startDaemon(config: holder, in: directory)
        try waitForHealth(port: port, process: first, log: log)
        let second = try directory.write("second.yml", "storage: { path: b.sqlite }\nfeed: { listen: 127.0.0.1:\(port) }\n")
        // Refused before any service starts (a bind failing inside the running group used to hang it now and then):
        // one line, exit 70, no store created.
        for _ in 0..<3 {
            let started = Date()
            let busy = try ProcessRunner.run(["run", "--config", second], currentDirectory: directory.url, timeout: 20)
            XCTAssertEqual(busy.status, 70, busy.stderr)
            XCTAssertEqual(busy.stderr, "netvigil: feed.listen 127.0.0.1:\(port): address already in use (another process "
                           + "listens there; `ss -tlnp` names it)\n")
            XCTAssertLessThan(Date().timeIntervalSince(started), 5)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("b.sqlite")))
        }
        _ = stop(first)
    }
}
