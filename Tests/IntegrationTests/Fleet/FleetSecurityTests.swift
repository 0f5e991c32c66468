import Foundation
import NetVigilTestSupport
import XCTest

/// What the database refuses and what an agent does when it cannot ship: row-level security between agents, and a
/// wrong password, an unreachable host and a certificate from another CA each give one log line and a metric
/// while probing goes on.
final class FleetSecurityTests: XCTestCase {
    private var bed: FleetTestBed!

    override func tearDown() {
        bed?.tearDown()
    }

    func testAgentACannotWriteAsAgentB() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let a = try String(contentsOfFile: try bed.addAgent("agent-a"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let b = try String(contentsOfFile: try bed.addAgent("agent-b"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        func asA(_ sql: String) throws -> ProcessRunner.Result { try bed.postgres.psql(sql, user: "agent-a", password: a) }
        // Own rows: accepted.
        XCTAssertEqual(try asA("SELECT netvigil_ensure_partitions(current_date, current_date)").status, 0)
        let own = try asA("INSERT INTO probe_results (agent, seq, time, target, outcome) VALUES ('agent-a', 1, now(), 't', 'ok')")
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(try bed.postgres.psql("""
            INSERT INTO agents (agent, version, config_digest, last_seen) VALUES ('agent-b', '1', 'x', now())
            """, user: "agent-b", password: b).status, 0)
        // As B: refused by the database.
        let forged = try asA("INSERT INTO probe_results (agent, seq, time, target, outcome) VALUES ('agent-b', 1, now(), 't', 'ok')")
        XCTAssertNotEqual(forged.status, 0)
        XCTAssertTrue(forged.stderr.contains("row-level security"), forged.stderr)
        let heartbeat = try asA("INSERT INTO agents (agent, version, config_digest, last_seen) VALUES ('agent-b', '1', 'x', now())")
        XCTAssertTrue(heartbeat.stderr.contains("row-level security"), heartbeat.stderr)
        let upsert = try asA("""
            INSERT INTO agents (agent, version, config_digest, last_seen) VALUES ('agent-a', '1', 'x', now())
            ON CONFLICT (agent) DO UPDATE SET agent = 'agent-b'
            """)
        XCTAssertEqual(upsert.status, 0, upsert.stderr)
        let hijack = try asA("UPDATE agents SET agent = 'agent-b', version = 'forged' WHERE agent = 'agent-a'")
        XCTAssertTrue(hijack.stderr.contains("row-level security"), hijack.stderr)
        let update = try asA("UPDATE agents SET version = 'forged' WHERE agent = 'agent-b'")
        XCTAssertEqual(update.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "UPDATE 0", "B's row is invisible to A")
        let history = try asA("UPDATE probe_results SET outcome = 'failed'")
        XCTAssertTrue(history.stderr.contains("permission denied"), history.stderr)
        let delete = try asA("DELETE FROM probe_results")
        XCTAssertTrue(delete.stderr.contains("permission denied"), delete.stderr)
        let partition = try asA("INSERT INTO probe_results_\(Self.today()) (agent, seq, time, target, outcome) VALUES ('agent-b', 2, now(), 't', 'ok')")
        XCTAssertTrue(partition.stderr.contains("permission denied"), partition.stderr)
        XCTAssertEqual(try bed.postgres.rows("SELECT agent, version FROM agents ORDER BY agent").map { $0.joined(separator: "|") },
                       ["agent-a|1", "agent-b|1"])
        XCTAssertEqual(try bed.postgres.rows("SELECT agent FROM probe_results").map { $0[0] }, ["agent-a"])
        // A reader reads everything and writes nothing.
        XCTAssertEqual(try bed.postgres.psql("CREATE ROLE grafana LOGIN PASSWORD 'reader-pass' IN ROLE netvigil_reader").status, 0)
        let read = try bed.postgres.psql("SELECT count(*) FROM agents", user: "grafana", password: "reader-pass")
        XCTAssertEqual(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2", read.stderr)
        let write = try bed.postgres.psql("INSERT INTO agents (agent, version, config_digest, last_seen) VALUES ('grafana', '1', 'x', now())",
                                          user: "grafana", password: "reader-pass")
        XCTAssertTrue(write.stderr.contains("permission denied"), write.stderr)

        // A hub reads everything and writes only its alert tables; agents cannot see those.
        let hubPath = bed.scratch.path("hub.pass")
        XCTAssertEqual(try bed.fleet(["add-hub", "hub1", "--password-file", hubPath]).status, 0)
        let hub = try String(contentsOfFile: hubPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        func asHub(_ sql: String) throws -> ProcessRunner.Result { try bed.postgres.psql(sql, user: "hub1", password: hub) }
        XCTAssertEqual(try asHub("SELECT count(*) FROM agents").stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2")
        XCTAssertEqual(try asHub("SELECT count(*) FROM probe_results").stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let alert = try asHub("""
            INSERT INTO fleet_alerts (alert_key, kind, subject, state, since, updated, payload)
            VALUES ('k', 'agent_silent', 'agent-a', 'firing', now(), now(), '{}')
            """)
        XCTAssertEqual(alert.status, 0, alert.stderr)
        for forbidden in ["INSERT INTO probe_results (agent, seq, time, target, outcome) VALUES ('agent-a', 9, now(), 't', 'ok')",
                          "UPDATE agents SET version = 'forged'", "DELETE FROM latest_results"] {
            XCTAssertTrue(try asHub(forbidden).stderr.contains("permission denied"), forbidden)
        }
        XCTAssertTrue(try asA("SELECT count(*) FROM fleet_alerts").stderr.contains("permission denied"))
    }

    /// Wrong password, nothing listening, a certificate signed by another CA: each agent logs one line naming the
    /// kind, counts every attempt in `netvigil_fleet_errors_total`, never logs the password, and goes on probing.
    func testWrongPasswordUnreachableHostAndCertificateMismatch() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        _ = try bed.addAgent("golf")
        let wrong = try bed.scratch.write("wrong.pass", "not-the-password\n")
        let otherCA = try LoopbackPKI(in: try TemporaryDirectory(), caName: "Other CA", leaves: [])
        _ = try bed.addAgent("india")
        let cases: [(name: String, kind: String, fleet: String)] = [
            ("golf", "authentication", bed.fleetBlock("golf", passwordFile: wrong)),
            ("hotel", "connect", bed.fleetBlock("hotel", passwordFile: wrong, port: ProcessRunner.freePort())),
            ("india", "tls", bed.fleetBlock("india", passwordFile: bed.scratch.path("india.pass"),
                                             tls: "{ mode: verify-full, ca: \(otherCA.directory.path("ca.pem")) }")),
        ]
        for entry in cases { try bed.startAgent(entry.name, fleet: entry.fleet) }
        for entry in cases {
            let agent = bed.agents[entry.name]!
            try agent.waitUntil("\(entry.name): three failed attempts", timeout: 30) {
                agent.metric("netvigil_fleet_errors_total", matching: "kind=\"\(entry.kind)\"") >= 3
            }
            let probes = agent.metric("netvigil_probes_total")
            Thread.sleep(forTimeInterval: 2)
            XCTAssertGreaterThan(agent.metric("netvigil_probes_total"), probes, "\(entry.name) probes on")
            XCTAssertEqual(agent.health().status, 200)
            let lines = agent.log.components(separatedBy: "\n").filter { $0.contains("fleet shipping failed") }
            XCTAssertEqual(lines.count, 1, "\(entry.name): one line for the whole run of failures: \(lines)")
            XCTAssertTrue(lines.first?.contains("(\(entry.kind))") == true, "\(entry.name): \(lines)")
            XCTAssertFalse(agent.log.contains("not-the-password"))
            let password = (try? String(contentsOfFile: bed.scratch.path("india.pass"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unset"
            XCTAssertFalse(agent.log.contains(password))
        }
        XCTAssertEqual(try bed.postgres.rows("SELECT count(*) FROM probe_results").first?.first, "0")
    }

    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}
