import Foundation
import GRDB
import NetVigilTestSupport
import XCTest

/// The fleet tests' world: a test CA, a real PostgreSQL 15 serving TLS with a certificate for `localhost`, the
/// schema migrated with the real `netvigil fleet migrate`, agents added with `netvigil fleet add-agent` and run as
/// real `netvigil run` processes probing every second.
final class FleetTestBed {
    let pki: LoopbackPKI
    let postgres: FleetPostgres
    let scratch: TemporaryDirectory
    /// A port nobody listens on: every probe of it fails fast, so each target yields a row a second.
    let deadPort = ProcessRunner.freePort()
    private(set) var agents: [String: DaemonUnderTest] = [:]

    init() throws {
        scratch = try TemporaryDirectory()
        pki = try LoopbackPKI(in: try TemporaryDirectory(), caName: "Fleet Test CA", leaves: [("db", "/CN=localhost")],
                              subjectAltName: "DNS:localhost,IP:127.0.0.1")
        postgres = try FleetPostgres(certificate: pki.directory.path("db.pem"), key: pki.directory.path("db.key"))
    }

    /// `netvigil fleet ARGUMENTS --postgres <superuser URL> --tls verify-full --ca <test CA>` with PGPASSWORD set.
    func fleet(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["fleet"] + arguments + ["--postgres", postgres.url(), "--tls", "verify-full",
                                                       "--ca", pki.directory.path("ca.pem")],
                              environment: ["PGPASSWORD": postgres.superuserPassword], timeout: timeout)
    }

    func migrate(file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try fleet(["migrate"])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
    }

    /// Adds agent `name` and returns the path of its password file.
    func addAgent(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = scratch.path("\(name).pass")
        let result = try fleet(["add-agent", name, "--password-file", path])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return path
    }

    /// Adds the hub role `hub` (`netvigil fleet add-hub`) and returns a hub configuration for it: this database over
    /// TLS, an evaluation every second, retries from 100 ms, `consensus` (the body of its flow mapping) when given,
    /// and `sinks` (one flow mapping each; none: no `alerts:`).
    func hubConfiguration(consensus: String? = nil, sinks: [String] = [], file: StaticString = #filePath,
                          line: UInt = #line) throws -> String {
        let password = scratch.path("hub.pass")
        let added = try fleet(["add-hub", "hub", "--password-file", password])
        XCTAssertEqual(added.status, 0, added.stderr, file: file, line: line)
        let alerts = sinks.isEmpty ? "" : """

            alerts:
              retry: { initial: 100ms, max: 1s }
              sinks:
            \(sinks.map { "    - \($0)" }.joined(separator: "\n"))
            """
        return """
            fleet:
              postgres: postgres://hub@localhost:\(postgres.port)/\(postgres.database)
              password_file: \(password)
              tls: { mode: verify-full, ca: \(pki.directory.path("ca.pem")) }
              evaluate_every: 1s\(consensus.map { "\n  consensus: { \($0) }" } ?? "")
            """ + alerts
    }

    /// The `fleet:` block of agent `name`: TLS verify-full against the test CA unless `fleetYAML` replaces it.
    func fleetBlock(_ name: String, passwordFile: String, port: Int? = nil, host: String = "localhost",
                    tls: String? = nil) -> String {
        """
        fleet:
          postgres: postgres://\(name)@\(host):\(port ?? postgres.port)/\(postgres.database)
          password_file: \(passwordFile)
          tls: \(tls ?? "{ mode: verify-full, ca: \(pki.directory.path("ca.pem")) }")
          heartbeat: 1s
        """
    }

    /// Starts agent `name` with `targets` targets probing every second (0: none, to let it only ship), or with
    /// `targetList` (a `targets:` section of the test's own) instead; inside network namespace `namespace` when given
    /// (at its first start: a restart stays where it was).
    @discardableResult
    func startAgent(_ name: String, fleet: String, targets: Int = 3, targetList: String? = nil,
                    namespace: String? = nil) throws -> DaemonUnderTest {
        let daemon = try agents[name] ?? DaemonUnderTest(namespace: namespace)
        agents[name] = daemon
        let targetList = targetList
            ?? (targets == 0 ? "targets: []" : "targets:\n" + daemon.targets(targets, url: "http://127.0.0.1:\(deadPort)/"))
        try daemon.start(config: """
            storage: { path: n.sqlite }
            feed: { listen: 127.0.0.1:\(daemon.feedPort) }
            log: { level: info }
            \(fleet)
            \(targetList)
            """)
        return daemon
    }

    /// The agent's local probe results as `seq|time_ms|target|outcome|error_kind`, in id order.
    func localProbeRows(_ name: String) throws -> [String] {
        let daemon = try XCTUnwrap(agents[name])
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: daemon.directory.path("n.sqlite"), configuration: configuration)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, time_ms, target, outcome, COALESCE(error_kind, '') FROM probe_results ORDER BY id")
                .map { "\($0[0] as Int64)|\($0[1] as Int64)|\($0[2] as String)|\($0[3] as String)|\($0[4] as String)" }
        }
    }

    /// The central rows of agent `name`, in the same shape, in `seq` order.
    func centralProbeRows(_ name: String) throws -> [String] {
        try postgres.rows("""
            SELECT seq, round(extract(epoch FROM time) * 1000)::bigint, target, outcome, COALESCE(error_kind, '')
            FROM probe_results WHERE agent = '\(name)' ORDER BY seq
            """).map { $0.joined(separator: "|") }
    }

    func centralCount(_ name: String) -> Int {
        (try? postgres.rows("SELECT count(*) FROM probe_results WHERE agent = '\(name)'").first?.first).flatMap { Int($0) } ?? -1
    }

    /// Stops agent `name` (SIGTERM), restarts it without targets so that it only ships what it stored, waits until
    /// its backlog is 0, stops it, and asserts that PostgreSQL holds exactly its local rows: same count, same content,
    /// same order, no duplicate (the primary key forbids them; `count(DISTINCT seq)` checks it).
    func assertCentralEqualsLocal(_ name: String, passwordFile: String, fleet: String? = nil,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let daemon = try XCTUnwrap(agents[name])
        _ = daemon.stop()
        try startAgent(name, fleet: fleet ?? fleetBlock(name, passwordFile: passwordFile), targets: 0)
        let local = try localProbeRows(name)
        XCTAssertFalse(local.isEmpty, "\(name) stored rows", file: file, line: line)
        try daemon.waitUntil("\(name) has shipped its \(local.count) rows", timeout: 60) {
            self.centralCount(name) >= local.count && daemon.metric("netvigil_fleet_backlog_rows") == 0
        }
        _ = daemon.stop()
        let central = try centralProbeRows(name)
        XCTAssertEqual(central.count, local.count, "\(name): rows in PostgreSQL vs the local store", file: file, line: line)
        XCTAssertEqual(central, local, "\(name): content and order", file: file, line: line)
        let distinct = try postgres.rows("SELECT count(DISTINCT seq) FROM probe_results WHERE agent = '\(name)'")
        XCTAssertEqual(distinct.first?.first, "\(local.count)", file: file, line: line)
        // Reachability events travel the same way. The restart itself records new ones, which may come after the
        // last round: PostgreSQL holds a prefix of the local events, each once, in order.
        var configuration = Configuration()
        configuration.readonly = true
        let localEvents = try DatabaseQueue(path: daemon.directory.path("n.sqlite"), configuration: configuration).read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM reachability_events ORDER BY id").map(String.init)
        }
        let centralEvents = try postgres.rows("SELECT seq FROM reachability_events WHERE agent = '\(name)' ORDER BY seq").map { $0[0] }
        XCTAssertFalse(centralEvents.isEmpty, "\(name) shipped reachability events", file: file, line: line)
        XCTAssertEqual(centralEvents, Array(localEvents.prefix(centralEvents.count)), file: file, line: line)
    }

    func tearDown() {
        for daemon in agents.values { daemon.tearDown() }
        postgres.stop()
    }
}
