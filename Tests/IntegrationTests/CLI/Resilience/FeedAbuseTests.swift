import Foundation
import NetVigilTestSupport
import XCTest

/// Feed clients must never stop probing: SSE churn, streams that are never read, idle connection floods.
/// Each test runs the real daemon with 20 targets probed every second against a real nginx.
final class FeedAbuseTests: XCTestCase {
    private var daemon: DaemonUnderTest!
    private var nginx: NginxProcess?

    override func tearDown() {
        daemon?.tearDown()
        nginx?.stop()
    }

    /// nginx answering `/health` with 200; returns the URL.
    private func startTargetServer() throws -> String {
        let port = ProcessRunner.freePort()
        nginx = try NginxProcess(prefix: daemon.directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(port);
                    location = /health { return 200 'up'; }
                }
            """, ports: [port])
        return "http://127.0.0.1:\(port)/health"
    }

    /// A webhook receiver writing `hooks.ndjson`; returns the `alerts:` section paging on the first failed probe.
    private func startReceiver() throws -> String {
        let hookPort = ProcessRunner.freePort()
        try daemon.python("receiver.py", HostileClients.receiver, ["\(hookPort)", daemon.directory.path("hooks.ndjson")])
        return """
            alerts:
              sinks: [{ name: hook, webhook: { url: "http://127.0.0.1:\(hookPort)/hook" } }]
              rules: { target_down: { threshold: 1 } }
            """
    }

    private var hooks: String { (try? String(contentsOfFile: daemon.directory.path("hooks.ndjson"), encoding: .utf8)) ?? "" }

    private func config(url: String, feed extra: String = "", sinks: String = "") -> String {
        """
        storage: { path: n.sqlite }
        feed: { listen: 127.0.0.1:\(daemon.feedPort)\(extra) }
        log: { level: info }
        scheduler: { concurrency: 32 }
        \(sinks)
        targets:
        \(daemon.targets(20, url: url, alerts: !sinks.isEmpty))
        """
    }

    /// The deadlock: subscribe/abort churn at 40 concurrent hung the whole daemon after 2,300–3,600
    /// connections. Now probing goes on, `/healthz` answers 200 throughout, and SIGTERM ends the daemon.
    func testSSEChurnNeverStopsProbingOrHealth() throws {
        daemon = try DaemonUnderTest()
        try daemon.start(config: config(url: try startTargetServer()))
        try daemon.waitUntil("first probes", timeout: 15) { self.daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") >= 20 }
        let before = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"")
        let started = Date()
        let churn = try daemon.python("churn.py", HostileClients.churn, ["\(daemon.feedPort)", "6000", "40"], output: "churn.out")
        var healthChecks = 0
        var unhealthy: [String] = []
        while churn.isRunning && Date().timeIntervalSince(started) < 240 {
            let (status, body) = daemon.health()
            healthChecks += 1
            if status != 200 { unhealthy.append("\(status) \(body)") }
            Thread.sleep(forTimeInterval: 0.25)
        }
        let summary = daemon.finish(churn, output: "churn.out", timeout: 5)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(summary.contains("cycles=6000"), summary)
        XCTAssertEqual(unhealthy, [], "/healthz during the churn (\(healthChecks) checks)")
        let probed = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") - before
        // 20 targets at 1 s: allow for start-up spread and a loaded 2-core machine, but not for a stall.
        XCTAssertGreaterThan(probed, 20 * elapsed * 0.7, "ok probes during \(Int(elapsed)) s of churn: \(probed)")
        let stopped = daemon.stop()
        XCTAssertLessThan(stopped, 5, "SIGTERM after the churn")
        XCTAssertEqual(daemon.process?.terminationStatus, 0, daemon.log.suffix(2_000).description)
    }

    /// 1,000 streams that are never read: at most `max_event_subscribers` are served, the rest get 503; memory stays
    /// bounded, probes stay on time, and memory goes back near the baseline when the clients leave.
    func testNonReadingSubscribersAreCappedAndCostLittle() throws {
        daemon = try DaemonUnderTest()
        // Connections are not the limit here (see the flood test): every client gets an answer at once.
        try daemon.start(config: config(url: try startTargetServer(), feed: ", max_connections: 2000, max_event_subscribers: 200"))
        try daemon.waitUntil("first probes", timeout: 15) { self.daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") >= 20 }
        Thread.sleep(forTimeInterval: 3)
        let baseline = daemon.residentMiB()
        let before = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"")
        let started = Date()
        let stall = try daemon.python("stall.py", HostileClients.stall, ["\(daemon.feedPort)", "1000", "12"], output: "stall.out")
        try daemon.waitUntil("the stalled clients' answers", timeout: 40) {
            (try? String(contentsOfFile: self.daemon.directory.path("stall.out"), encoding: .utf8))?.contains("ok=") == true
        }
        let counts = (try? String(contentsOfFile: daemon.directory.path("stall.out"), encoding: .utf8)) ?? ""
        XCTAssertTrue(counts.contains("ok=200 "), "exactly the cap is served: \(counts)")
        XCTAssertTrue(counts.contains("refused=800 "), "the rest get 503: \(counts)")
        var peak = 0.0
        while stall.isRunning { peak = max(peak, daemon.residentMiB()); Thread.sleep(forTimeInterval: 0.5) }
        let elapsed = Date().timeIntervalSince(started)
        let probed = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") - before
        XCTAssertGreaterThan(probed, 20 * elapsed * 0.7, "ok probes during \(Int(elapsed)) s of stalled clients: \(probed)")
        XCTAssertLessThan(peak - baseline, 64, "RSS grew from \(baseline) MiB to \(peak) MiB with 1,000 stalled clients")
        // The refused clients' connections close on the idle timeout (10 s); then the heap is trimmed.
        Thread.sleep(forTimeInterval: 2)
        let after = daemon.residentMiB()
        print("RSS with 1,000 non-reading SSE clients: baseline \(baseline) MiB, peak \(peak) MiB, after \(after) MiB")
        XCTAssertLessThan(after, baseline * 1.10 + 2, "RSS after the clients left: \(after) MiB, baseline \(baseline) MiB")
        XCTAssertEqual(daemon.metric("netvigil_feed_event_subscribers_refused_total"), 800)
        XCTAssertEqual(daemon.health().status, 200)
    }

    /// 3,000 idle connections (no request sent, no token needed) against a daemon limited to 1,024 descriptors:
    /// the feed's connection cap and idle timeout keep descriptors for probes, so no probe fails and no alert fires.
    func testIdleConnectionFloodCausesNoFalseAlerts() throws {
        daemon = try DaemonUnderTest()
        let sinks = try startReceiver()
        try daemon.start(config: config(url: try startTargetServer(), sinks: sinks),
                         wrapper: ["/usr/bin/prlimit", "--nofile=1024:1024"])
        try daemon.waitUntil("first probes", timeout: 15) { self.daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") >= 20 }
        let flood = try daemon.python("idle.py", HostileClients.idle, ["\(daemon.feedPort)", "3000", "15"], output: "idle.out")
        let opened = daemon.finish(flood, output: "idle.out", timeout: 60)
        XCTAssertTrue(opened.contains("opened=3000"), opened)
        try daemon.waitUntil("/healthz after the flood", timeout: 20) { self.daemon.health().status == 200 }
        XCTAssertEqual(daemon.metric("netvigil_probes_total", matching: "outcome=\"failed\""), 0, daemon.log.suffix(3_000).description)
        XCTAssertEqual(daemon.metric("netvigil_resource_exhausted_total"), 0)
        XCTAssertEqual(hooks, "", "no alert may fire")
    }

    /// A cap set far above the open-file limit (5,000 against 256 descriptors) and 400 idle connections: the
    /// daemon lowers the cap at start so the flood never takes the descriptors its probes and its own threads
    /// need. Before, the flood used up all 256: probes found no socket, and libdispatch's thread-pool monitor,
    /// unable to open `/proc/<tid>/stat`, killed the process with SIGILL ("workq: registered worker exited
    /// prematurely") about one run in five on a busy machine.
    func testAFeedCapAboveTheDescriptorLimitIsLoweredSoAFloodNeverExhaustsTheAgent() throws {
        daemon = try DaemonUnderTest()
        let sinks = try startReceiver()
        try daemon.start(config: config(url: try startTargetServer(), feed: ", max_connections: 5000, idle_timeout: 60s",
                                        sinks: sinks),
                         wrapper: ["/usr/bin/prlimit", "--nofile=256:256"])
        try daemon.waitUntil("first probes", timeout: 15) { self.daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") >= 20 }
        let lowered = daemon.log.components(separatedBy: "\n").first { $0.contains("feed.max_connections 5000 lowered to ") }
        XCTAssertTrue(lowered?.contains("the open-file limit is 256") == true, daemon.log.suffix(2_000).description)
        let pid = try XCTUnwrap(daemon.process?.processIdentifier)
        let before = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"")
        let started = Date()
        let flood = try daemon.python("idle.py", HostileClients.idle, ["\(daemon.feedPort)", "400", "8"], output: "idle.out")
        var peakDescriptors = 0
        while flood.isRunning {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
            peakDescriptors = max(peakDescriptors, open)
            Thread.sleep(forTimeInterval: 0.2)
        }
        let opened = daemon.finish(flood, output: "idle.out", timeout: 30)
        XCTAssertTrue(opened.contains("opened=400"), opened)
        // The held connections close on the flood's exit; the rest leave the accept queue.
        try daemon.waitUntil("/healthz after the flood", timeout: 30) { self.daemon.health().status == 200 }
        let elapsed = Date().timeIntervalSince(started)
        let probed = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") - before
        XCTAssertGreaterThan(probed, 20 * elapsed * 0.7, "ok probes during \(Int(elapsed)) s of flood: \(probed)")
        XCTAssertLessThan(peakDescriptors, 256 - 32, "descriptors open during the flood, limit 256")
        XCTAssertFalse(daemon.log.contains("out of resources"), daemon.log.suffix(3_000).description)
        XCTAssertEqual(daemon.metric("netvigil_resource_exhausted_total"), 0)
        XCTAssertEqual(daemon.metric("netvigil_probes_total", matching: "outcome=\"failed\""), 0)
        XCTAssertEqual(hooks, "", "no alert may fire")
        XCTAssertTrue(daemon.process?.isRunning == true)
        print("flood of 400 idle connections, limit 256: peak \(peakDescriptors) descriptors, \(Int(probed)) ok probes in \(Int(elapsed)) s")
    }
}
