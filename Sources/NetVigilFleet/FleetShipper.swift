import Foundation
import Logging
import NetVigilAgent
import NetVigilStore
import PostgresNIO
import ServiceLifecycle

/// Copies this agent's history from the local store to the fleet's PostgreSQL (issue #53, docs/fleet.md).
///
/// Rows go in local id order (commit order), a batch per statement, keyed by (agent, seq) and inserted with
/// `ON CONFLICT DO NOTHING`: delivery is at least once, the effect exactly once. The local cursor moves only after
/// PostgreSQL acknowledged, and lives in the local database, so `kill -9` at any point resends at most one batch.
/// When PostgreSQL cannot be reached the shipper backs off and retries; probing and the local store never wait for
/// it. One log line per run of failures of one kind, one when shipping resumes; every failure counts in
/// `netvigil_fleet_errors_total`.
public final class FleetShipper: Service, Sendable {
    private let store: Store
    private let connector: FleetConnector
    private let identity: FleetAgentIdentity
    private let heartbeat: Duration
    private let policy: ShippingPlan.Policy
    private let metrics: AgentMetrics?
    private let status: FleetShippingStatus
    private let logger: Logger
    /// What postgres-nio logs through (``FleetConnector/driverLogger(_:)``).
    private let driverLogger: Logger

    public init(store: Store, connector: FleetConnector, identity: FleetAgentIdentity, heartbeat: Duration,
                policy: ShippingPlan.Policy = .init(), metrics: AgentMetrics?, status: FleetShippingStatus, logger: Logger) {
        self.store = store
        self.connector = connector
        self.identity = identity
        self.heartbeat = heartbeat
        self.policy = policy
        self.metrics = metrics
        self.status = status
        self.logger = logger
        driverLogger = FleetConnector.driverLogger(logger)
    }

    /// The loop's own state (one task owns it).
    private struct Session {
        var connection: PostgresConnection?
        var lastHeartbeat: ContinuousClock.Instant?
        var lastProgress: ContinuousClock.Instant?
        var failingKind: FleetError.Kind?
        var failures = 0
        /// UTC days (days since 1970) whose partitions this process has made sure of.
        var ensuredDays = Set<Int64>()
        /// Each stream's backlog as its last page told it (rows after the page): while shipping, progress is taken
        /// from the pages instead of counting every second.
        var backlog: [ShippedStream: Int] = [:]
    }

    public func run() async throws {
        metrics?.fleetStarted(streams: ShippedStream.allCases.map(\.rawValue))
        let cursors: [ShippedStream: Int64]
        do {
            cursors = try await store.shippingCursors()
        } catch {
            logger.error("fleet shipping cannot read its cursor from the local store; not shipping", metadata: ["error": "\(error)"])
            metrics?.fleetError(kind: FleetError.Kind.localStore.rawValue)
            return
        }
        logger.info("fleet shipping to \(connector.url)", metadata: ["agent": "\(identity.agent)", "tls": "\(connector.tlsMode.rawValue)"])
        await cancelWhenGracefulShutdown {
            await self.loop(cursors: cursors)
        }
    }

    private func loop(cursors: [ShippedStream: Int64]) async {
        var plan = ShippingPlan(cursors: cursors, policy: policy)
        var session = Session()
        defer {
            if let connection = session.connection { Task { try? await connection.close() } }
        }
        rounds: while !Task.isCancelled {
            let step = plan.next(jitter: Double.random(in: 0..<1))
            switch step {
            case .ship(let stream, let after, let limit):
                do {
                    try await ship(stream, after: after, limit: limit, plan: &plan, session: &session)
                    try await heartbeatIfDue(session: &session)
                    succeeded(session: &session)
                } catch {
                    // Stopping (graceful shutdown) cancels the batch in flight: not a failure, it is resent next time.
                    if Task.isCancelled { break rounds }
                    failed(error, plan: &plan, session: &session)
                }
                if session.lastProgress.map({ .now - $0 > .seconds(1) }) ?? true {
                    await refreshProgress(plan: plan, session: &session, fromPages: true)
                }
            case .idle(let pause):
                do {
                    try await heartbeatIfDue(session: &session)
                    succeeded(session: &session)
                } catch {
                    if Task.isCancelled { break rounds }
                    failed(error, plan: &plan, session: &session)
                }
                // Every stream came back short: nothing is waiting, so the lag and backlog are 0 without a query.
                caughtUp()
                try? await Task.sleep(for: pause)
            case .backoff(let pause):
                // The lag and backlog keep growing while the database is away: refreshed every second, not once per
                // back-off (which reaches 30 s).
                let end = ContinuousClock.now + pause
                while !Task.isCancelled, ContinuousClock.now < end {
                    await refreshProgress(plan: plan, session: &session)
                    try? await Task.sleep(for: min(.seconds(1), end - .now))
                }
            }
        }
    }

    private func ship(_ stream: ShippedStream, after cursor: Int64, limit: Int, plan: inout ShippingPlan,
                      session: inout Session) async throws {
        let page: ShippingPage
        do {
            page = try await store.shippingPage(stream, after: cursor, limit: limit)
        } catch {
            throw FleetError(.localStore, "\(error)")
        }
        if page.expired > 0 {
            // Retention deleted them before they were shipped: counted and said, then passed over.
            logger.warning("fleet shipping: local retention deleted rows that were never shipped", metadata: [
                "stream": "\(stream.rawValue)", "rows": "\(page.expired)"])
            metrics?.fleetExpired(stream: stream.rawValue, rows: Int(page.expired))
            plan.skipExpired(stream, through: cursor + page.expired)
            do { try await store.setShippingCursor(stream, to: cursor + page.expired) } catch {
                throw FleetError(.localStore, "\(error)")
            }
        }
        if page.restarted {
            logger.warning("fleet shipping: local ids restarted below the cursor (retention emptied the table); shipping it from the start",
                           metadata: ["stream": "\(stream.rawValue)", "cursor": "\(cursor)"])
            do { try await store.resetShippingCursor(stream) } catch { throw FleetError(.localStore, "\(error)") }
            plan.restart(stream)
            return
        }
        guard let last = page.rows.last else {
            session.backlog[stream] = 0
            plan.acknowledged(stream, through: nil, full: false)
            return
        }
        let connection = try await connected(&session)
        try await ensurePartitions(for: page.rows, connection: connection, session: &session)
        do {
            try await connection.query(stream.insertQuery(json: page.jsonArray, agent: identity.agent), logger: driverLogger)
        } catch {
            throw FleetError.classify(error)
        }
        do {
            try await store.setShippingCursor(stream, to: last.sequence)
        } catch {
            throw FleetError(.localStore, "\(error)")
        }
        session.backlog[stream] = page.remaining
        plan.acknowledged(stream, through: last.sequence, full: page.rows.count >= limit)
        metrics?.fleetShipped(stream: stream.rawValue, rows: page.rows.count, unixSeconds: Date().timeIntervalSince1970)
    }

    /// Asks the database for the day partitions of the batch's days it has not confirmed yet in this process.
    private func ensurePartitions(for rows: [ShippingPage.Row], connection: PostgresConnection,
                                  session: inout Session) async throws {
        let days = Set(rows.map { Self.utcDay(milliseconds: $0.timeMilliseconds) }).subtracting(session.ensuredDays)
        for day in days.sorted() {
            let date = Self.isoDate(day: day)
            do {
                try await connection.query("SELECT netvigil_ensure_partitions(\(date)::date, \(date)::date)", logger: driverLogger)
            } catch {
                throw FleetError.classify(error)
            }
            session.ensuredDays.insert(day)
        }
    }

    private func heartbeatIfDue(session: inout Session) async throws {
        if let last = session.lastHeartbeat, .now - last < heartbeat { return }
        // The interval goes with the heartbeat: the hub judges each agent's silence by its own (`silent_after: 3x`).
        let heartbeatSeconds = Double(heartbeat.components.seconds) + Double(heartbeat.components.attoseconds) / 1e18
        let connection = try await connected(&session)
        do {
            try await connection.query("""
                INSERT INTO agents (agent, version, labels, targets, config_digest, last_seen, shipping_lag_seconds,
                                    heartbeat_seconds)
                VALUES (\(identity.agent), \(identity.version), \(identity.labelsJSON)::jsonb, \(identity.targetsJSON)::jsonb,
                        \(identity.configDigest), now(), \(status.lagSeconds), \(heartbeatSeconds))
                ON CONFLICT (agent) DO UPDATE SET version = EXCLUDED.version, labels = EXCLUDED.labels,
                    targets = EXCLUDED.targets, config_digest = EXCLUDED.config_digest, last_seen = EXCLUDED.last_seen,
                    shipping_lag_seconds = EXCLUDED.shipping_lag_seconds, heartbeat_seconds = EXCLUDED.heartbeat_seconds
                """, logger: driverLogger)
        } catch {
            throw FleetError.classify(error)
        }
        session.lastHeartbeat = .now
        metrics?.fleetShipped(stream: nil, rows: 0, unixSeconds: Date().timeIntervalSince1970)
    }

    private func connected(_ session: inout Session) async throws(FleetError) -> PostgresConnection {
        if let connection = session.connection, !connection.isClosed { return connection }
        session.connection = nil
        let connection = try await connector.connect(logger: driverLogger)
        session.connection = connection
        return connection
    }

    private func succeeded(session: inout Session) {
        guard session.failingKind != nil else { return }
        logger.info("fleet shipping resumed", metadata: ["failed_attempts": "\(session.failures)"])
        session.failingKind = nil
        session.failures = 0
    }

    private func failed(_ error: any Error, plan: inout ShippingPlan, session: inout Session) {
        let failure = FleetError.classify(error)
        plan.failed()
        session.failures += 1
        metrics?.fleetError(kind: failure.kind.rawValue)
        // A partition this process made sure of may have been dropped since (retention): ask again.
        if failure.kind == .server { session.ensuredDays.removeAll() }
        if let connection = session.connection {
            session.connection = nil
            Task { try? await connection.close() }
        }
        if failure.kind == .localStore || failure.kind != session.failingKind {
            logger.error("fleet shipping failed (\(failure.kind.rawValue)): \(failure.message); rows stay in the local store and are retried with back-off; probing goes on",
                         metadata: ["postgres": "\(connector.url)"])
        }
        session.failingKind = failure.kind
    }

    /// Everything committed so far is shipped.
    private func caughtUp() {
        status.update(lagSeconds: 0)
        metrics?.fleetProgress(lagSeconds: 0, backlog: Dictionary(uniqueKeysWithValues: ShippedStream.allCases.map { ($0.rawValue, 0) }))
    }

    /// Lag (age of the oldest unshipped row) and backlog per stream, into the metrics and the health status.
    /// `fromPages`: the backlog of each stream as its last page left it (no count; a stream not shipped yet in this
    /// process is counted once); else counted now (while the database is away, no pages come).
    private func refreshProgress(plan: ShippingPlan, session: inout Session, fromPages: Bool = false) async {
        session.lastProgress = .now
        var oldest: Timestamp?
        var backlog: [String: Int] = [:]
        for stream in ShippedStream.allCases {
            let cursor = plan.cursors[stream] ?? 0
            var remaining: Int
            if fromPages, let known = session.backlog[stream] {
                remaining = known
            } else {
                guard let page = try? await store.shippingPage(stream, after: cursor, limit: 0) else { continue }
                remaining = page.remaining
                session.backlog[stream] = remaining
            }
            backlog[stream.rawValue] = remaining
            if remaining > 0, let time = try? await store.oldestUnshippedTime(stream, after: cursor),
               oldest.map({ time.milliseconds < $0.milliseconds }) ?? true {
                oldest = time
            }
        }
        let lag = oldest.map { max(0, Double(Timestamp.now().milliseconds - $0.milliseconds) / 1000) } ?? 0
        status.update(lagSeconds: lag)
        metrics?.fleetProgress(lagSeconds: lag, backlog: backlog)
    }

    static func utcDay(milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    static func isoDate(day: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
    }
}
