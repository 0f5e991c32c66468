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

    /// The daemon executes itself again (same process) with glibc's per-thread malloc caches off, keeping the
    /// operator's other tunables; a count the operator set stays as it is.
    func testDaemonRunsWithoutMallocThreadCachesUnlessTheOperatorSetsThem() throws {
        var inherited = ProcessInfo.processInfo.environment
        inherited["GLIBC_TUNABLES"] = nil
        for (preset, expected) in [(nil, "glibc.malloc.tcache_count=0"),
                                   ("glibc.malloc.top_pad=65536", "glibc.malloc.top_pad=65536:glibc.malloc.tcache_count=0"),
                                   ("glibc.malloc.tcache_count=7", "glibc.malloc.tcache_count=7")] {
            let directory = try TemporaryDirectory()
            let port = ProcessRunner.freePort()
            let config = try directory.write("n.yml", "storage: { path: n.sqlite }\nfeed: { listen: 127.0.0.1:\(port) }\n")
            var environment = inherited
            environment["GLIBC_TUNABLES"] = preset
            let (process, log) = try startDaemon(config: config, in: directory, environment: environment)
            try waitForHealth(port: port, process: process, log: log)
            // The environment the process was executed with. glibc, parsing GLIBC_TUNABLES at start, ends each
            // value in place (a colon there reads as a NUL), so colons and NULs are compared alike.
            let raw = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))
            let variables = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let joined = ":" + variables.joined(separator: ":") + ":"
            XCTAssertTrue(joined.contains(":GLIBC_TUNABLES=\(expected):"), "\(variables.filter { $0.hasPrefix("GLIBC") })")
            XCTAssertEqual(joined.components(separatedBy: "tcache_count=").count, 2, "the count is set once")
            for (name, value) in environment where name != "GLIBC_TUNABLES" {
                XCTAssertTrue(variables.contains("\(name)=\(value)"), "\(name) kept")
            }
            // Executed again as /proc/self/exe, it names itself after its first argument, not "exe".
            let name = try String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8)
            XCTAssertEqual(name, "netvigil\n", "what ps and pgrep see")
            XCTAssertLessThan(stop(process), 5)
            XCTAssertEqual(process.terminationStatus, 0)
        }
    }

    /// A daemon that gains privileges at `exec` (file capabilities, run as nobody: `AT_SECURE`) has the tunable erased
    /// by glibc; it starts with the caches on instead of executing itself again and again.
    func testDaemonThatGainsCapabilitiesAtExecStartsWithoutReexecuting() throws {
        let directory = try TemporaryDirectory()
        XCTAssertEqual(chmod(directory.url.path, 0o777), 0)
        let binary = directory.path("netvigil")
        try FileManager.default.copyItem(atPath: ProcessRunner.binary.path, toPath: binary)
        let setcap = try ProcessRunner.run(["cap_net_raw+ep", binary], executable: URL(fileURLWithPath: "/usr/sbin/setcap"))
        XCTAssertEqual(setcap.status, 0, "setcap comes with libcap2-bin: \(setcap.stderr)")
        let port = ProcessRunner.freePort()
        let config = try directory.write("n.yml", "storage: { path: n.sqlite }\nfeed: { listen: 127.0.0.1:\(port) }\n")
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = nil
        let (process, log) = try startDaemon(config: config, in: directory, environment: environment, binary: binary,
                                             launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        try waitForHealth(port: port, process: process, log: log)
        let auxiliary = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/auxv"))
        let secure = auxiliary.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count - 15, by: 16).first { bytes.load(fromByteOffset: $0, as: UInt64.self) == UInt64(AT_SECURE) }
                .map { bytes.load(fromByteOffset: $0 + 8, as: UInt64.self) }
        }
        XCTAssertEqual(secure, 1, "the kernel marked the exec as gaining privileges")
        let variables = try String(contentsOfFile: "/proc/\(process.processIdentifier)/environ", encoding: .utf8)
        XCTAssertFalse(variables.contains("GLIBC_TUNABLES"), "not executed again")
        XCTAssertLessThan(stop(process), 5)
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
