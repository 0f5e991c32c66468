import Foundation
import NetVigilTestSupport
import XCTest

/// The real `netvigil run` for the resilience tests: its configuration, log, feed and process, plus the hostile
/// clients (python3 scripts) they point at it. With a `namespace`, the daemon runs inside that network namespace
/// (`ip netns exec`, which execs it: the process is the daemon) and its feed is read from there.
final class DaemonUnderTest {
    let directory: TemporaryDirectory
    let feedPort = ProcessRunner.freePort()
    let namespace: String?
    private(set) var process: Process?
    private var helpers: [Process] = []

    init(namespace: String? = nil) throws {
        directory = try TemporaryDirectory()
        self.namespace = namespace
    }

    var logPath: String { directory.path("daemon.log") }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var feed: String { "http://127.0.0.1:\(feedPort)" }

    /// A configuration with the store in the test directory, the feed on `feedPort`, info logs and `count` targets
    /// probing `url` every second.
    func configuration(targets count: Int, url: String) -> String {
        """
        storage: { path: n.sqlite }
        feed: { listen: 127.0.0.1:\(feedPort) }
        log: { level: info }
        targets:
        \(targets(count, url: url))
        """
    }

    /// `count` HTTP targets named t0… probing `url` every `interval`, under the given extra top-level YAML.
    func targets(_ count: Int, url: String, interval: String = "1s", timeout: String = "2s", alerts: Bool = false) -> String {
        (0..<count).map { index in
            "  - { name: t\(index), url: \"\(url)\", interval: \(interval), timeout: \(timeout)\(alerts ? "" : ", alerts: []") }"
        }.joined(separator: "\n")
    }

    /// Writes the configuration and starts the daemon, optionally under a wrapper such as `prlimit` (inside the
    /// namespace's `ip netns exec`, when it has one); waits for 200 from `/healthz`.
    func start(config: String, wrapper: [String] = []) throws {
        let path = try directory.write("netvigil.yml", config)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        let arguments = ["run", "--config", path]
        let wrapper = (namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? []) + wrapper
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [ProcessRunner.binary.path] + arguments
        } else {
            process.executableURL = ProcessRunner.binary
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory.url
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntil("the daemon answers /healthz with 200", timeout: 30) { self.health().status == 200 }
    }

    /// `/healthz`: status and body (status 0 when it did not answer within 5 s).
    func health() -> (status: Int, body: String) {
        (try? ProcessRunner.curl("\(feed)/healthz", namespace: namespace)).map { ($0.0, $0.1) } ?? (0, "")
    }

    /// The sum of every sample of a metric whose labels contain `matching` (e.g. `outcome="ok"`).
    func metric(_ name: String, matching: String = "") -> Double {
        guard let (status, body) = try? ProcessRunner.curl("\(feed)/metrics", namespace: namespace), status == 200 else { return -1 }
        return body.split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix(name), !line.hasPrefix(name + "_"), matching.isEmpty || line.contains(matching),
                  let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { return total }
            return total + value
        }
    }

    /// The daemon's resident set in MiB (`VmRSS`).
    func residentMiB() -> Double {
        guard let pid = process?.processIdentifier,
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return -1 }
        return kilobytes / 1_024
    }

    /// Sends `signal` and returns the seconds until the process ended (at most 15).
    func stop(signal: Int32 = SIGTERM) -> TimeInterval {
        guard let process, process.isRunning else { return 0 }
        let start = Date()
        kill(process.processIdentifier, signal)
        while process.isRunning && Date().timeIntervalSince(start) < 15 { Thread.sleep(forTimeInterval: 0.02) }
        return Date().timeIntervalSince(start)
    }

    /// Runs a python3 script from `source` with arguments; returns the process (killed at teardown).
    @discardableResult
    func python(_ name: String, _ source: String, _ arguments: [String], output: String? = nil) throws -> Process {
        let script = try directory.write(name, source)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script] + arguments
        process.standardInput = FileHandle.nullDevice
        if let output {
            _ = FileManager.default.createFile(atPath: directory.path(output), contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path(output)))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        try process.run()
        helpers.append(process)
        return process
    }

    /// Waits for a helper script to end (fails the test after `timeout`) and returns its output file's text.
    func finish(_ process: Process, output: String, timeout: TimeInterval) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            XCTFail("\(process.arguments?.first ?? "script") did not finish within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
        }
        return (try? String(contentsOfFile: directory.path(output), encoding: .utf8)) ?? ""
    }

    /// Polls `condition` every 100 ms; fails with the daemon's log tail after `timeout`.
    func waitUntil(_ what: String, timeout: TimeInterval, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            if let process, !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("timed out after \(timeout) s waiting for \(what); daemon log tail:\n\(log.suffix(3_000))", file: file, line: line)
        throw XCTSkip("aborted: \(what)")
    }

    /// Kills everything still running.
    func tearDown() {
        for helper in helpers where helper.isRunning { kill(helper.processIdentifier, SIGKILL) }
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
