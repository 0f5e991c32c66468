import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilFleet

/// `netvigil fleet migrate` against a real PostgreSQL 15: an empty database gets the schema, the roles and the day
/// partitions; a second run and two concurrent runs change nothing; the password of `add-agent` lands only in its
/// 0600 file.
final class FleetMigrationTests: XCTestCase {
    private var bed: FleetTestBed!

    override func tearDown() {
        bed?.tearDown()
    }

    func testMigrateOnAnEmptyDatabaseThenAgainAndTwiceAtOnce() throws {
        bed = try FleetTestBed()
        let first = try bed.fleet(["migrate", "--retention", "400d"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("applied versions 1, 2, 3"), first.stdout)
        let tables = try bed.postgres.rows("""
            SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname !~ '_[0-9]{8}$' ORDER BY 1
            """).map { "\($0[0]):\($0[1])" }
        XCTAssertEqual(tables, ["agents:r", "alert_events:p", "fleet_alert_outbox:r", "fleet_alerts:r", "fleet_endpoint_keys:r",
                                "latest_results:r", "netvigil_schema_migrations:r", "netvigil_settings:r", "probe_results:p",
                                "reachability_events:p"])
        // Partitions from yesterday to a week ahead, for each of the three history tables.
        let partitions = try bed.postgres.rows("""
            SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
            WHERE p.relname IN ('probe_results', 'reachability_events', 'alert_events')
            """)
        XCTAssertEqual(partitions.first?.first, "27")
        let roles = try bed.postgres.rows("SELECT rolname FROM pg_roles WHERE rolname LIKE 'netvigil_%' ORDER BY 1").map { $0[0] }
        XCTAssertEqual(roles, ["netvigil_agent", "netvigil_hub", "netvigil_reader"])
        let security = try bed.postgres.rows("""
            SELECT relname FROM pg_class WHERE relrowsecurity AND relname IN
            ('probe_results', 'reachability_events', 'alert_events', 'latest_results', 'agents') ORDER BY 1
            """).map { $0[0] }
        XCTAssertEqual(security.count, 5, "\(security)")

        let again = try bed.fleet(["migrate"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("schema current (version 3)"), again.stdout)
        XCTAssertTrue(again.stdout.contains("0 partitions created"), again.stdout)
        XCTAssertTrue(again.stdout.contains("retention 400d"), again.stdout)

        // Two at once on a fresh database: both succeed, one applies, the other finds it done.
        XCTAssertEqual(try bed.postgres.psql("CREATE DATABASE fleet2", database: "postgres").status, 0)
        let url = "postgres://postgres@localhost:\(bed.postgres.port)/fleet2"
        let results = Array(repeating: url, count: 2).map { url in
            let process = Process()
            process.executableURL = ProcessRunner.binary
            process.arguments = ["fleet", "migrate", "--postgres", url, "--tls", "require"]
            process.environment = ["PGPASSWORD": bed.postgres.superuserPassword]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            return (process, output)
        }
        for (process, _) in results { try process.run() }
        var outputs: [String] = []
        for (process, output) in results {
            outputs.append(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, outputs.last ?? "")
        }
        XCTAssertEqual(outputs.filter { $0.contains("applied versions 1, 2, 3") }.count, 1, "\(outputs)")
        XCTAssertEqual(outputs.filter { $0.contains("schema current") }.count, 1, "\(outputs)")
        let versions = try bed.postgres.psql("SELECT count(*) FROM netvigil_schema_migrations", database: "fleet2")
        XCTAssertEqual(versions.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(FleetSchema.currentVersion)", versions.stderr)
    }

    /// A database at version 1 with history in it (as the first fleet release left it) takes versions 2 and 3
    /// in place: the rows stay, the new columns are empty until agents ship again.
    func testVersionOneWithDataUpgradesInPlace() throws {
        bed = try FleetTestBed()
        let version1 = (["CREATE TABLE netvigil_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"]
            + FleetSchema.version1 + ["INSERT INTO netvigil_schema_migrations (version) VALUES (1)",
            "INSERT INTO agents (agent, version, config_digest, last_seen) VALUES ('web1', '0.1.0', 'builtin', now())",
            "INSERT INTO latest_results (agent, target, seq, time, outcome) VALUES ('web1', 'api', 7, now(), 'ok')"])
            .joined(separator: ";\n")
        let setUp = try bed.postgres.psql(version1)
        XCTAssertEqual(setUp.status, 0, setUp.stderr)
        let upgrade = try bed.fleet(["migrate"])
        XCTAssertEqual(upgrade.status, 0, upgrade.stderr)
        XCTAssertTrue(upgrade.stdout.contains("applied versions 2, 3"), upgrade.stdout)
        XCTAssertEqual(try bed.postgres.rows("SELECT agent, shipping_lag_seconds FROM agents"), [["web1", "0"]])
        XCTAssertEqual(try bed.postgres.rows("SELECT target, seq, coalesce(url, '-'), coalesce(served_spki, '-') FROM latest_results"),
                       [["api", "7", "-", "-"]])
        // Version 3: a row written from now on names its transaction, whoever writes it (the hub reads only those).
        XCTAssertEqual(try bed.postgres.rows("SELECT written IS NULL FROM latest_results"), [["t"]])
        XCTAssertEqual(try bed.postgres.psql("UPDATE latest_results SET seq = 8").status, 0)
        XCTAssertEqual(try bed.postgres.rows("SELECT written IS NOT NULL, written <= pg_current_xact_id() FROM latest_results"), [["t", "t"]])
    }

    func testPartitionsPastTheRetentionAreDroppedWhole() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        // A day far in the past, as an agent with an old backlog would have made it.
        XCTAssertEqual(try bed.postgres.psql("SELECT netvigil_ensure_partitions('2020-01-01', '2020-01-01')").status, 0)
        XCTAssertEqual(try bed.postgres.rows("SELECT to_regclass('probe_results_20200101') IS NOT NULL").first?.first, "t")
        let result = try bed.fleet(["migrate", "--retention", "30d"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("3 dropped"), result.stdout)
        XCTAssertEqual(try bed.postgres.rows("SELECT to_regclass('probe_results_20200101') IS NULL").first?.first, "t")

        // The hub's tables: delivered notices and resolved alerts past the retention go; pending and firing stay.
        let seeded = try bed.postgres.psql("""
            INSERT INTO fleet_alert_outbox (alert_key, kind, sink, payload, idempotency_key, state, delivered) VALUES
                ('a', 'agent_silent', 'hook', '{}', 'old-delivered', 'delivered', now() - interval '40 days'),
                ('a', 'agent_silent', 'hook', '{}', 'new-delivered', 'delivered', now() - interval '1 day'),
                ('a', 'agent_silent', 'hook', '{}', 'old-pending', 'pending', NULL);
            INSERT INTO fleet_alerts (alert_key, kind, subject, state, since, updated, payload) VALUES
                ('old-resolved', 'agent_silent', 'a', 'resolved', now() - interval '50 days', now() - interval '40 days', '{}'),
                ('old-firing', 'agent_silent', 'b', 'firing', now() - interval '50 days', now() - interval '40 days', '{}')
            """)
        XCTAssertEqual(seeded.status, 0, seeded.stderr)
        XCTAssertEqual(try bed.fleet(["migrate"]).status, 0)
        XCTAssertEqual(try bed.postgres.rows("SELECT idempotency_key FROM fleet_alert_outbox ORDER BY 1").map { $0[0] },
                       ["new-delivered", "old-pending"])
        XCTAssertEqual(try bed.postgres.rows("SELECT alert_key FROM fleet_alerts").map { $0[0] }, ["old-firing"])
    }

    func testAddAgentWritesItsPasswordOnlyToAPrivateFileAndLogsIn() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let path = bed.scratch.path("web-1.pass")
        let result = try bed.fleet(["add-agent", "web-1", "--password-file", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let password = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(password.count, 43)
        XCTAssertFalse(result.stdout.contains(password) || result.stderr.contains(password))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        // The server holds a SCRAM verifier, never the password.
        let stored = try bed.postgres.rows("SELECT rolpassword FROM pg_authid WHERE rolname = 'web-1'").first?.first ?? ""
        XCTAssertTrue(stored.hasPrefix("SCRAM-SHA-256$4096:"), stored)
        XCTAssertFalse(bed.postgres.log.contains(password))
        let login = try bed.postgres.psql("SELECT current_user, pg_has_role('netvigil_agent', 'member')", user: "web-1", password: password)
        XCTAssertEqual(login.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "web-1|t", login.stderr)
        // Again: a new password (rotation); the old one no longer logs in.
        XCTAssertEqual(try bed.fleet(["add-agent", "web-1", "--password-file", path]).status, 0)
        XCTAssertNotEqual(try bed.postgres.psql("SELECT 1", user: "web-1", password: password).status, 0)
        let bad = try bed.fleet(["add-agent", "no good", "--password-file", path])
        XCTAssertEqual(bad.status, 64, bad.stderr)
    }
}
