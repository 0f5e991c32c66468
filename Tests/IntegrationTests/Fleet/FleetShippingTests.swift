import Foundation
import NetVigilTestSupport
import XCTest

/// Real agents ship to a real PostgreSQL 15 (TLS verify-full, scram-sha-256) through outages and crashes: every
/// row arrives exactly once, in order, equal to the agent's local store.
final class FleetShippingTests: XCTestCase {
    private var bed: FleetTestBed!

    override func tearDown() {
        bed?.tearDown()
    }

    /// Three agents probe every second; PostgreSQL stops for 60 s and starts again: rows stay local, probing goes on,
    /// the back-off reaches its 30 s cap, and the catch-up lands each row once, in order.
    func testThreeAgentsThroughAPostgresOutageArriveExactlyOnceInOrder() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let names = ["alpha", "bravo", "charlie"]
        var passwords: [String: String] = [:]
        for name in names {
            passwords[name] = try bed.addAgent(name)
            try bed.startAgent(name, fleet: bed.fleetBlock(name, passwordFile: passwords[name]!))
        }
        for name in names {
            try bed.agents[name]!.waitUntil("\(name) ships", timeout: 30) { self.bed.centralCount(name) >= 6 }
        }
        // Heartbeats: one row per agent, seen recently.
        let heartbeats = try bed.postgres.rows("SELECT agent, version, config_digest LIKE 'sha256:%' FROM agents ORDER BY agent")
        XCTAssertEqual(heartbeats.map { $0[0] }, names)
        XCTAssertTrue(heartbeats.allSatisfy { $0[2] == "t" }, "\(heartbeats)")

        bed.postgres.stop()
        let probesBefore = names.map { bed.agents[$0]!.metric("netvigil_probes_total") }
        Thread.sleep(forTimeInterval: 60)
        for (index, name) in names.enumerated() {
            let agent = bed.agents[name]!
            XCTAssertGreaterThan(agent.metric("netvigil_probes_total") - probesBefore[index], 100, "\(name) probes on")
            XCTAssertGreaterThan(agent.metric("netvigil_fleet_backlog_rows"), 100, "\(name) keeps its rows")
            XCTAssertGreaterThan(agent.metric("netvigil_fleet_shipping_lag_seconds"), 40)
            XCTAssertGreaterThan(agent.metric("netvigil_fleet_errors_total", matching: "kind=\"connect\""), 1)
            // Lag past 10 × the 1 s heartbeat: a warning on /healthz, not a 503 (probing is fine).
            let health = agent.health()
            XCTAssertEqual(health.status, 200, "probing is healthy while the fleet database is away")
            XCTAssertTrue(health.body.contains("warning: fleet shipping lag"), health.body)
            let failures = agent.log.components(separatedBy: "\n").filter { $0.contains("fleet shipping failed") }
            XCTAssertEqual(failures.count, 1, "one log line per outage: \(failures)")
        }
        try bed.postgres.start()
        for name in names {
            // The back-off may be at its cap (30 s, plus up to half again at random) when the database returns.
            try bed.agents[name]!.waitUntil("\(name) catches up", timeout: 90) {
                self.bed.agents[name]!.metric("netvigil_fleet_backlog_rows") == 0
            }
            XCTAssertTrue(bed.agents[name]!.log.contains("fleet shipping resumed"))
        }
        for name in names { try bed.assertCentralEqualsLocal(name, passwordFile: passwords[name]!) }
        // latest_results: one row per (agent, target), the newest seq of each.
        let stale = try bed.postgres.rows("""
            SELECT count(*) FROM latest_results l
            WHERE l.seq <> (SELECT max(p.seq) FROM probe_results p WHERE p.agent = l.agent AND p.target = l.target)
            """)
        XCTAssertEqual(stale.first?.first, "0")
        XCTAssertEqual(try bed.postgres.rows("SELECT count(*) FROM latest_results").first?.first, "9")
    }

    /// `kill -9` of an agent while it ships a backlog of several batches, five times at different moments: after a
    /// last clean run PostgreSQL holds each local row once.
    func testKillNineWhileShippingLosesAndDuplicatesNothing() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let password = try bed.addAgent("delta")
        // A backlog first: 100 targets for ~12 s while the database is down (about 1,200 rows, three batches).
        bed.postgres.stop()
        let agent = try bed.startAgent("delta", fleet: bed.fleetBlock("delta", passwordFile: password), targets: 100)
        try agent.waitUntil("a backlog of 1,000 rows", timeout: 60) { agent.metric("netvigil_probes_total") >= 1_000 }
        try bed.postgres.start()
        var killsWithBacklog = 0
        for delay in [0.3, 0.6, 0.9, 1.5, 2.5] {
            let before = bed.centralCount("delta")
            // Kill once rows are landing: within a batch or between two.
            _ = Poll.until(timeout: 20) { self.bed.centralCount("delta") > before }
            Thread.sleep(forTimeInterval: delay / 10)
            _ = agent.stop(signal: SIGKILL)
            if bed.centralCount("delta") < (try bed.localProbeRows("delta").count) { killsWithBacklog += 1 }
            try bed.startAgent("delta", fleet: bed.fleetBlock("delta", passwordFile: password), targets: 100)
        }
        XCTAssertGreaterThan(killsWithBacklog, 0, "at least one kill came while rows were still to ship")
        try bed.assertCentralEqualsLocal("delta", passwordFile: password)
    }

    /// pgbouncer in transaction pooling between the agents and PostgreSQL: shipping and heartbeats work (no session
    /// state, no named prepared statement), rows land once.
    func testShippingThroughPgbouncerTransactionPooling() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        var passwords: [String: String] = [:]
        for name in ["echo", "foxtrot"] { passwords[name] = try bed.addAgent(name) }
        let users = try passwords.mapValues { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
        let bouncer = try ServiceProcess.pgbouncer(postgresPort: bed.postgres.port, database: bed.postgres.database, users: users)
        defer { bouncer.stop() }
        let port = bouncer.port("pgbouncer")
        for name in ["echo", "foxtrot"] {
            try bed.startAgent(name, fleet: bed.fleetBlock(name, passwordFile: passwords[name]!, port: port, host: "127.0.0.1",
                                                         tls: "{ mode: disable }"))
        }
        for name in ["echo", "foxtrot"] {
            try bed.agents[name]!.waitUntil("\(name) ships through pgbouncer", timeout: 30) { self.bed.centralCount(name) >= 9 }
        }
        XCTAssertEqual(try bed.postgres.rows("SELECT count(*) FROM agents").first?.first, "2")
        for name in ["echo", "foxtrot"] {
            try bed.assertCentralEqualsLocal(name, passwordFile: passwords[name]!,
                                             fleet: bed.fleetBlock(name, passwordFile: passwords[name]!, port: port,
                                                                   host: "127.0.0.1", tls: "{ mode: disable }"))
            XCTAssertFalse(bed.agents[name]!.log.contains("fleet shipping failed"), bed.agents[name]!.log)
        }
    }
}
