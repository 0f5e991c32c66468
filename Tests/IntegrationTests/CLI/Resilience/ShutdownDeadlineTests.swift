import Foundation
import NetVigilTestSupport
import XCTest

/// SIGTERM and SIGINT end the daemon cleanly (exit 0, well within the 4.8 s deadline) even while every probe hangs
/// on a server that never answers: the probes in flight are cancelled and stored as cancelled, with no alert.
final class ShutdownDeadlineTests: XCTestCase {
    private var daemon: DaemonUnderTest!

    override func tearDown() {
        daemon?.tearDown()
    }

    private func startWithHangingTargets(_ count: Int = 20, timeout: String = "60s", alerts: Bool = false) throws {
        daemon = try DaemonUnderTest()
        let port = ProcessRunner.freePort()
        try daemon.python("blackhole.py", HostileClients.blackhole, ["\(port)"])
        try daemon.waitUntil("the black hole listens", timeout: 10) {
            (try? ProcessRunner.run(["-tlnH", "sport", "=", ":\(port)"], executable: URL(fileURLWithPath: "/usr/bin/ss")).stdout)?
                .contains("\(port)") == true
        }
        try daemon.start(config: """
            storage: { path: n.sqlite }
            feed: { listen: 127.0.0.1:\(daemon.feedPort) }
            targets:
            \(daemon.targets(count, url: "http://127.0.0.1:\(port)/", interval: "1s", timeout: timeout, alerts: alerts))
            """)
        // Every probe is now stuck waiting for a response.
        Thread.sleep(forTimeInterval: 3)
    }

    func testSIGTERMWithHangingProbesStopsCleanly() throws {
        try startWithHangingTargets()
        let seconds = daemon.stop(signal: SIGTERM)
        assertCleanStop(seconds)
    }

    func testSIGINTWithHangingProbesStopsCleanly() throws {
        try startWithHangingTargets()
        let seconds = daemon.stop(signal: SIGINT)
        assertCleanStop(seconds)
    }

    /// One silent target with a 50 s timeout and its default alert rules: the stop cancels its probe, stores it as
    /// skipped ("cancelled: ..."), raises no alert and exits 0. Before, the group's 4 s grace ran out and the process
    /// exited 70 at the 4.8 s deadline, so `systemctl stop` left the unit failed.
    func testASilentTargetIsCancelledNotFailed() throws {
        try startWithHangingTargets(1, timeout: "50s", alerts: true)
        let seconds = daemon.stop(signal: SIGTERM)
        assertCleanStop(seconds)
        let export = try ProcessRunner.run(["export", "--db", daemon.directory.path("n.sqlite"), "--format", "ndjson",
                                            "--kind", "all"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let rows = export.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let probes = rows.filter { $0["type"] as? String == "probe" }
        XCTAssertFalse(probes.isEmpty, export.stdout)
        for probe in probes {
            XCTAssertEqual(probe["outcome"] as? String, "skipped", "\(probe)")
            let error = probe["error"] as? [String: Any]
            XCTAssertEqual(error?["kind"] as? String, "cancelled", "\(probe)")
            XCTAssertTrue((error?["message"] as? String ?? "").hasPrefix("cancelled: netvigil stopped"), "\(probe)")
        }
        XCTAssertFalse(rows.contains { $0["type"] as? String == "alert" }, export.stdout)
    }

    private func assertCleanStop(_ seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(daemon.process?.isRunning ?? true, file: file, line: line)
        XCTAssertLessThan(seconds, 2, daemon.log.suffix(2_000).description, file: file, line: line)
        XCTAssertEqual(daemon.process?.terminationStatus, 0, daemon.log.suffix(2_000).description, file: file, line: line)
        XCTAssertFalse(daemon.log.contains("stopping now"), daemon.log.suffix(2_000).description, file: file, line: line)
    }
}
