import Foundation
import NetVigilTestSupport
import XCTest

/// A machine that goes offline gets skipped probes, not failures or alerts: the daemon runs in its own network
/// namespace, its target (a server in a second namespace, over a veth pair) disappears when the link goes down.
final class OfflineSkipTests: XCTestCase {
    private var namespaces: [String] = []
    private var processes: [Process] = []

    override func tearDown() {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
        for name in namespaces { _ = try? ip(["netns", "delete", name]) }
    }

    @discardableResult
    private func ip(_ arguments: [String]) throws -> ProcessRunner.Result {
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/sbin/ip"), timeout: 20)
        if result.status != 0 { throw OfflineSkipError(message: "ip \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result
    }

    private func inNamespace(_ namespace: String, _ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        processes.append(process)
        return process
    }

    private func status(_ namespace: String, feed: Int) -> [String: Any]? {
        guard let result = try? ProcessRunner.run(
            ["netns", "exec", namespace, "curl", "-s", "-m", "3", "http://127.0.0.1:\(feed)/v1/status"],
            executable: URL(fileURLWithPath: "/usr/sbin/ip"), timeout: 10), result.status == 0 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    }

    private func waitUntil(_ what: String, timeout: TimeInterval, log: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTFail("timed out waiting for \(what); daemon log tail:\n\(text.suffix(3_000))")
        throw OfflineSkipError(message: "timed out waiting for \(what)")
    }

    func testTargetBehindADownLinkIsSkippedWithoutAlertAndProbedWhenBack() throws {
        guard getuid() == 0 else { throw XCTSkip("network namespaces need root") }
        let suffix = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let agent = "nv-agent-\(suffix)", server = "nv-server-\(suffix)"
        for name in [agent, server] {
            try ip(["netns", "add", name])
            namespaces.append(name)
            try ip(["-n", name, "link", "set", "lo", "up"])
        }
        let left = "nva\(suffix.prefix(8))", right = "nvb\(suffix.prefix(8))"
        try ip(["link", "add", left, "netns", agent, "type", "veth", "peer", "name", right, "netns", server])
        try ip(["-n", agent, "addr", "add", "10.78.0.1/24", "dev", left])
        try ip(["-n", server, "addr", "add", "10.78.0.2/24", "dev", right])
        try ip(["-n", agent, "link", "set", left, "up"])
        try ip(["-n", server, "link", "set", right, "up"])

        let directory = try TemporaryDirectory()
        let web = inNamespace(server, ["python3", "-m", "http.server", "8080", "--bind", "10.78.0.2", "--directory", directory.url.path])
        try web.run()
        // The daemon starts once the server listens: a first probe refused by a server still starting would page.
        try waitUntil("the server in the peer namespace to listen", timeout: 20, log: "/dev/null") {
            (try? ProcessRunner.run(["netns", "exec", agent, "curl", "-s", "-o", "/dev/null", "-m", "1", "http://10.78.0.2:8080/"],
                                    executable: URL(fileURLWithPath: "/usr/sbin/ip"), timeout: 10).status) == 0
        }
        let feed = 9337
        let config = try directory.write("netvigil.yml", """
            storage: { path: \(directory.path("state/netvigil.sqlite")) }
            feed: { listen: 127.0.0.1:\(feed) }
            targets:
              - { name: peer, url: "http://10.78.0.2:8080/", interval: 1s, timeout: 2s }
            alerts:
              sinks: [{ name: script, exec: { command: [/bin/sh, -c, "cat >> \(directory.path("alerts.ndjson")); echo >> \(directory.path("alerts.ndjson"))"] } }]
              rules: { target_down: { threshold: 1 } }
            """)
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let daemon = inNamespace(agent, [ProcessRunner.binary.path, "run", "--config", config])
        daemon.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try daemon.run()
        func peer() -> [String: Any]? {
            (status(agent, feed: feed)?["targets"] as? [[String: Any]])?.first { $0["name"] as? String == "peer" }
        }
        try waitUntil("the peer to be up", timeout: 30, log: log) { peer()?["status"] as? String == "up" }

        // The link goes down: the route to the peer disappears, probes are skipped.
        try ip(["-n", agent, "link", "set", left, "down"])
        try waitUntil("skipped probes", timeout: 10, log: log) { peer()?["status"] as? String == "skipped" }
        Thread.sleep(forTimeInterval: 2.5)
        let skipped = try XCTUnwrap(peer())
        func logTail() -> String { String(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(3_000)) }
        XCTAssertEqual(skipped["status"] as? String, "skipped")
        XCTAssertEqual(skipped["consecutive_failures"] as? Int, 0, "skips are not failures; daemon log tail:\n\(logTail())")
        XCTAssertEqual((skipped["firing_alerts"] as? [Any])?.count, 0)
        let last = try XCTUnwrap(skipped["last_result"] as? [String: Any])
        XCTAssertEqual(last["reachability_status"] as? String, "NotReachable")

        // The link comes back: probed at once (well within the 1 s interval after the route returns).
        try ip(["-n", agent, "link", "set", left, "up"])
        try waitUntil("the peer to be up again", timeout: 10, log: log) { peer()?["status"] as? String == "up" }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()

        let alerts = (try? String(contentsOfFile: directory.path("alerts.ndjson"), encoding: .utf8)) ?? ""
        XCTAssertFalse(alerts.contains("target_down"), "an offline machine must not page: \(alerts)\ndaemon log tail:\n\(logTail())")
        let export = try ProcessRunner.run(["export", "--config", config, "--format", "ndjson"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let rows = export.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertTrue(rows.contains { $0["type"] as? String == "reachability" && $0["target"] as? String == "10.78.0.2"
                          && $0["status"] as? String == "NotReachable" }, "the reachability change is stored")
        XCTAssertTrue(rows.contains { $0["type"] as? String == "probe" && $0["outcome"] as? String == "skipped" })
    }
}

struct OfflineSkipError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
