import Foundation
import NetVigilTestSupport
import XCTest

/// The store's file system fills up (a 16 MiB tmpfs the test mounts): probing and alerting go on, `/healthz` says
/// 503 within 5 s, results wait in memory and are written when space returns, nothing is lost, the file is intact.
final class StoreOutageTests: XCTestCase {
    private var daemon: DaemonUnderTest!
    private var mountPoint: String?
    private var nginx: NginxProcess?

    override func tearDown() {
        daemon?.tearDown()
        nginx?.stop()
        if let mountPoint { _ = try? ProcessRunner.run(["-l", mountPoint], executable: URL(fileURLWithPath: "/usr/bin/umount")) }
    }

    func testFullDiskKeepsProbingAlertsAndRecovers() throws {
        daemon = try DaemonUnderTest()
        let disk = daemon.directory.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mount = try ProcessRunner.run(["-t", "tmpfs", "-o", "size=16m", "tmpfs", disk],
                                          executable: URL(fileURLWithPath: "/usr/bin/mount"))
        XCTAssertEqual(mount.status, 0, "mount a tmpfs (the tests run as root): \(mount.stderr)")
        guard mount.status == 0 else { return }
        mountPoint = disk

        let port = ProcessRunner.freePort(), doomedPort = ProcessRunner.freePort(), hookPort = ProcessRunner.freePort()
        nginx = try NginxProcess(prefix: daemon.directory.path("nginx"), servers: """
                server { listen 127.0.0.1:\(port); location = /health { return 200 'up'; } }
                server { listen 127.0.0.1:\(doomedPort); location = /health { return 200 'up'; } }
            """, ports: [port, doomedPort])
        let hooks = daemon.directory.path("hooks.ndjson")
        try daemon.python("receiver.py", HostileClients.receiver, ["\(hookPort)", hooks])
        try daemon.start(config: """
            storage: { path: \(disk)/n.sqlite }
            feed: { listen: 127.0.0.1:\(daemon.feedPort) }
            alerts:
              sinks: [{ name: hook, webhook: { url: "http://127.0.0.1:\(hookPort)/hook" } }]
              rules: { target_down: { threshold: 1, resolve_threshold: 1 } }
            targets:
            \(daemon.targets(10, url: "http://127.0.0.1:\(port)/health"))
              - { name: doomed, url: "http://127.0.0.1:\(doomedPort)/health", interval: 1s, timeout: 2s }
            """)
        try daemon.waitUntil("first probes", timeout: 15) { self.daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") >= 11 }

        // Fill the file system.
        let filler = disk + "/filler"
        let fill = try ProcessRunner.run(["if=/dev/zero", "of=\(filler)", "bs=64k"], executable: URL(fileURLWithPath: "/usr/bin/dd"))
        XCTAssertNotEqual(fill.status, 0, "dd stops when the tmpfs is full")
        let filled = Date()
        try daemon.waitUntil("/healthz 503 naming the store", timeout: 5) {
            let (status, body) = self.daemon.health()
            return status == 503 && body.contains("store not writable") && body.contains("full")
        }
        XCTAssertLessThan(Date().timeIntervalSince(filled), 5)
        XCTAssertEqual(daemon.metric("netvigil_store_writable"), 0)
        // The status document (and so the status page) and `netvigil status` say so too.
        let (_, body) = try ProcessRunner.curl("\(daemon.feed)/v1/status")
        let health = (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["health"] as? [String: Any]
        XCTAssertEqual(health?["healthy"] as? Bool, false, body)
        XCTAssertTrue((health?["problems"] as? [String])?.first?.hasPrefix("store not writable:") == true, body)
        let status = try ProcessRunner.run(["status", "--feed", daemon.feed])
        XCTAssertTrue(status.stdout.contains("UNHEALTHY: store not writable:"), status.stdout)

        // Probing goes on, and an alert raised now is delivered although it cannot be recorded.
        let okBefore = daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"")
        nginx?.stop()
        nginx = try NginxProcess(prefix: daemon.directory.path("nginx2"), servers: """
                server { listen 127.0.0.1:\(port); location = /health { return 200 'up'; } }
            """, ports: [port])
        try daemon.waitUntil("target_down for doomed delivered while the disk is full", timeout: 15) {
            ((try? String(contentsOfFile: hooks, encoding: .utf8)) ?? "").contains("\"target_down\"")
        }
        Thread.sleep(forTimeInterval: 2)
        XCTAssertGreaterThan(daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\"") - okBefore, 10,
                             "the healthy targets are still probed")
        XCTAssertEqual(daemon.health().status, 503)
        XCTAssertGreaterThan(daemon.metric("netvigil_store_queued_rows"), 0)

        // Space returns: everything waiting is written, /healthz recovers within 5 s.
        try FileManager.default.removeItem(atPath: filler)
        let freed = Date()
        try daemon.waitUntil("/healthz 200 after space returned", timeout: 5) { self.daemon.health().status == 200 }
        XCTAssertLessThan(Date().timeIntervalSince(freed), 5)
        try daemon.waitUntil("the queue drained", timeout: 10) { self.daemon.metric("netvigil_store_queued_rows") == 0 }
        XCTAssertEqual(daemon.metric("netvigil_store_dropped_rows_total"), 0)
        let probed = daemon.metric("netvigil_probes_total")
        XCTAssertLessThan(daemon.stop(), 5)
        XCTAssertEqual(daemon.process?.terminationStatus, 0)

        // Every result the daemon counted is in the file, which is intact; the alert is stored as delivered, once.
        let query = try ProcessRunner.run(
            ["-c", """
             import sqlite3, sys
             db = sqlite3.connect(sys.argv[1])
             print(db.execute('PRAGMA integrity_check').fetchone()[0])
             print(db.execute('SELECT COUNT(*) FROM probe_results').fetchone()[0])
             print(db.execute("SELECT COUNT(*) FROM alerts WHERE state = 'pending'").fetchone()[0])
             """, disk + "/n.sqlite"], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let lines = query.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, query.stderr)
        XCTAssertEqual(lines.first, "ok", "integrity check")
        // Probes finishing between the scrape and SIGTERM are stored too.
        XCTAssertGreaterThanOrEqual(lines.dropFirst().first.flatMap(Double.init) ?? 0, probed, "every counted result is stored")
        XCTAssertEqual(lines.last, "0", "the queued alert was committed as delivered")
        let delivered = ((try? String(contentsOfFile: hooks, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.contains("\"target_down\"") && $0.contains("\"firing\"") }
        XCTAssertEqual(delivered.count, 1, "the firing target_down is delivered exactly once: \(delivered)")
    }
}
