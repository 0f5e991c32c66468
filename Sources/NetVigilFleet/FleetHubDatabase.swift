import Foundation
import Logging
import NetVigilStore
import PostgresNIO

/// The hub's statements against the fleet database (schema version 2, ``FleetSchema``). Every function runs on a
/// connection it is given: the caller decides what shares a transaction.
public enum FleetHubDatabase {
    /// The transaction-scoped advisory lock an evaluation holds: hubs evaluate one after the other, each on the alert
    /// rows the previous one committed, so that no notice is written twice.
    public static let evaluationLock: Int64 = 0x6E76_5F68_7562_6576 // "nv_hubev"

    /// Every agent and agreed key, with the database's clock, and the latest results: all of them, or with
    /// `changedSince` only those written by a transaction from that one on.
    ///
    /// `horizon` is the oldest transaction still running before the results were read (`pg_snapshot_xmin`, taken in
    /// an earlier statement, so no later than the read's own): everything older was committed and read, so the next
    /// read asks for `changedSince: horizon` and misses nothing a transaction running now commits later.
    public static func snapshot(changedSince: UInt64? = nil, on connection: PostgresConnection,
                                logger: Logger) async throws -> (snapshot: FleetSnapshot, horizon: UInt64) {
        var time = Timestamp.now()
        var horizon: UInt64 = 0
        for try await (milliseconds, xmin) in try await connection.query(
            "SELECT (extract(epoch FROM now()) * 1000)::bigint, pg_snapshot_xmin(pg_current_snapshot())::text",
            logger: logger).decode((Int64, String).self) {
            time = Timestamp(milliseconds: milliseconds)
            horizon = UInt64(xmin) ?? 0
        }
        var agents: [FleetSnapshot.Agent] = []
        let decoder = JSONDecoder()
        for try await (agent, version, labels, lastSeen, lag, heartbeat) in try await connection.query("""
            SELECT agent, version, labels::text, (extract(epoch FROM last_seen) * 1000)::bigint, shipping_lag_seconds,
                   heartbeat_seconds
            FROM agents
            """, logger: logger).decode((String, String, String, Int64, Double, Double?).self) {
            let labels = (try? decoder.decode([String: String].self, from: Data(labels.utf8))) ?? [:]
            agents.append(FleetSnapshot.Agent(
                agent: agent, version: version, labels: labels, lastSeen: Timestamp(milliseconds: lastSeen),
                shippingLagSeconds: lag, heartbeat: heartbeat.flatMap { $0 > 0 ? .milliseconds(Int64($0 * 1000)) : nil }))
        }
        // Only what the verdicts read (``latestResults(of:on:logger:)`` reads the rest for one endpoint).
        var results: [FleetSnapshot.Result] = []
        let columns = """
            SELECT agent, target, url, (extract(epoch FROM time) * 1000)::bigint, outcome, pin_verdict, served_spki,
                   served_issuer
            FROM latest_results
            """
        let query: PostgresQuery = if let changedSince {
            "\(unescaped: columns) WHERE written >= \(String(changedSince))::xid8"
        } else {
            "\(unescaped: columns)"
        }
        for try await (agent, target, url, time, outcome, pin, spki, issuer) in try await connection.query(query, logger: logger)
            .decode((String, String, String?, Int64, String, String?, String?, String?).self) {
            results.append(FleetSnapshot.Result(
                agent: agent, target: target, url: url, time: Timestamp(milliseconds: time), outcome: outcome,
                pinVerdict: pin, servedSPKI: spki, servedIssuer: issuer))
        }
        var agreed: [String: FleetSnapshot.AgreedKey] = [:]
        for try await (endpoint, spki, issuer, since) in try await connection.query("""
            SELECT endpoint, spki, issuer, (extract(epoch FROM since) * 1000)::bigint FROM fleet_endpoint_keys
            """, logger: logger).decode((String, String, String?, Int64).self) {
            agreed[endpoint] = FleetSnapshot.AgreedKey(spki: spki, issuer: issuer, since: Timestamp(milliseconds: since))
        }
        return (FleetSnapshot(agents: agents, results: results, agreedKeys: agreed, time: time), horizon)
    }

    /// The whole latest result of each (agent, target) pair given (one endpoint's page).
    public static func latestResults(of pairs: [(agent: String, target: String)], on connection: PostgresConnection,
                                     logger: Logger) async throws -> [FleetSnapshot.Result] {
        guard !pairs.isEmpty else { return [] }
        var results: [FleetSnapshot.Result] = []
        for try await row in try await connection.query("""
            SELECT l.agent, l.target, l.url, (extract(epoch FROM l.time) * 1000)::bigint, l.outcome, l.error_kind,
                   l.http_status, l.total_ms, l.trust_verdict, l.pin_verdict, l.served_spki, l.served_issuer
            FROM latest_results l
            JOIN unnest(\(pairs.map(\.agent))::text[], \(pairs.map(\.target))::text[]) AS p(agent, target)
              ON l.agent = p.agent AND l.target = p.target
            """, logger: logger) {
            let (agent, target, url, time, outcome, errorKind, status, total, trust, pin, spki, issuer) = try row.decode(
                (String, String, String?, Int64, String, String?, Int?, Double?, String?, String?, String?, String?).self)
            results.append(FleetSnapshot.Result(
                agent: agent, target: target, url: url, time: Timestamp(milliseconds: time), outcome: outcome,
                errorKind: errorKind, httpStatus: status, totalMilliseconds: total, trustVerdict: trust, pinVerdict: pin,
                servedSPKI: spki, servedIssuer: issuer))
        }
        return results
    }

    /// Every row of `fleet_alerts` (a stored payload that no longer decodes is left out and logged).
    public static func storedAlerts(on connection: PostgresConnection, logger: Logger) async throws -> [FleetAlertPlan.StoredAlert] {
        var alerts: [FleetAlertPlan.StoredAlert] = []
        for try await (key, kind, subject, state, since, updated, payload) in try await connection.query("""
            SELECT alert_key, kind, subject, state, (extract(epoch FROM since) * 1000)::bigint,
                   (extract(epoch FROM updated) * 1000)::bigint, payload::text
            FROM fleet_alerts
            """, logger: logger).decode((String, String, String, String, Int64, Int64, String).self) {
            guard let kind = FleetCondition.Kind(rawValue: kind), let payload = try? FleetAlertPayload.decode(payload) else {
                logger.warning("fleet alert row not understood; left as it is", metadata: ["alert": "\(key)"])
                continue
            }
            alerts.append(FleetAlertPlan.StoredAlert(key: key, kind: kind, subject: subject, firing: state == "firing",
                                                     since: Timestamp(milliseconds: since),
                                                     updated: Timestamp(milliseconds: updated), payload: payload))
        }
        return alerts
    }

    /// Writes an evaluation's alert changes, notices and agreed keys.
    public static func apply(_ plan: FleetAlertPlan, agreedKeys: [String: FleetSnapshot.AgreedKey],
                             on connection: PostgresConnection, logger: Logger) async throws {
        for alert in plan.fire + plan.resolve {
            let payload = try alert.payload.jsonText()
            try await connection.query("""
                INSERT INTO fleet_alerts (alert_key, kind, subject, state, since, updated, payload)
                VALUES (\(alert.key), \(alert.kind.rawValue), \(alert.subject), \(alert.firing ? "firing" : "resolved"),
                        to_timestamp(\(alert.since.milliseconds)::bigint / 1000.0),
                        to_timestamp(\(alert.updated.milliseconds)::bigint / 1000.0), \(payload)::jsonb)
                ON CONFLICT (alert_key) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since,
                    updated = EXCLUDED.updated, payload = EXCLUDED.payload
                """, logger: logger)
        }
        for key in plan.touched {
            try await connection.query("UPDATE fleet_alerts SET updated = now() WHERE alert_key = \(key)", logger: logger)
        }
        for notice in plan.notices {
            let payload = try notice.payload.jsonText()
            try await connection.query("""
                INSERT INTO fleet_alert_outbox (alert_key, kind, sink, payload, idempotency_key)
                VALUES (\(notice.alertKey), \(notice.payload.kind), \(notice.sink), \(payload)::jsonb,
                        \(notice.payload.idempotencyKey))
                ON CONFLICT (idempotency_key) DO NOTHING
                """, logger: logger)
        }
        for (endpoint, key) in agreedKeys {
            try await connection.query("""
                INSERT INTO fleet_endpoint_keys (endpoint, spki, issuer, since)
                VALUES (\(endpoint), \(key.spki), \(key.issuer), to_timestamp(\(key.since.milliseconds)::bigint / 1000.0))
                ON CONFLICT (endpoint) DO UPDATE SET spki = EXCLUDED.spki, issuer = EXCLUDED.issuer, since = EXCLUDED.since
                """, logger: logger)
        }
    }

    /// A pending outbox row.
    public struct OutboxRow: Sendable, Equatable {
        public var id: Int64
        public var sink: String
        public var attempts: Int
        public var payload: FleetAlertPayload
    }

    /// Up to `limit` due rows, locked for this transaction; rows another hub holds are skipped, not waited for.
    public static func lockDueNotices(limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [OutboxRow] {
        var rows: [OutboxRow] = []
        for try await (id, sink, attempts, payload) in try await connection.query("""
            SELECT id, sink, attempts, payload::text FROM fleet_alert_outbox
            WHERE state = 'pending' AND next_attempt <= now()
            ORDER BY id LIMIT \(limit)
            FOR UPDATE SKIP LOCKED
            """, logger: logger).decode((Int64, String, Int, String).self) {
            guard let payload = try? FleetAlertPayload.decode(payload) else {
                try await connection.query("""
                    UPDATE fleet_alert_outbox SET next_attempt = now() + interval '1 hour',
                        last_error = 'the stored payload is not a fleet alert' WHERE id = \(id)
                    """, logger: logger)
                continue
            }
            rows.append(OutboxRow(id: id, sink: sink, attempts: attempts, payload: payload))
        }
        return rows
    }

    public static func markDelivered(_ id: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            UPDATE fleet_alert_outbox SET state = 'delivered', delivered = now(), attempts = attempts + 1, last_error = NULL
            WHERE id = \(id)
            """, logger: logger)
    }

    public static func scheduleRetry(_ id: Int64, after delay: Duration, error: String, on connection: PostgresConnection,
                                     logger: Logger) async throws {
        let milliseconds = Int64(delay.components.seconds) * 1000 + Int64(delay.components.attoseconds / 1_000_000_000_000_000)
        try await connection.query("""
            UPDATE fleet_alert_outbox SET attempts = attempts + 1, last_error = \(String(error.prefix(1_000))),
                next_attempt = now() + make_interval(secs => \(milliseconds)::bigint / 1000.0)
            WHERE id = \(id)
            """, logger: logger)
    }

    /// Results that were `ok`, and all but skipped ones, per agent over the last 24 hours and the last 7 days, of
    /// the (agent, target) pairs given (the targets that probe one endpoint; each agent names its own). One scan of the
    /// week through the `(target, time)` index: the pairs' distinct target names narrow it, the pairs filter it.
    public static func uptime(of pairs: [(agent: String, target: String)], on connection: PostgresConnection,
                              logger: Logger) async throws -> (day: [String: FleetEndpointDetail.Uptime],
                                                               week: [String: FleetEndpointDetail.Uptime]) {
        guard !pairs.isEmpty else { return ([:], [:]) }
        var day: [String: FleetEndpointDetail.Uptime] = [:]
        var week: [String: FleetEndpointDetail.Uptime] = [:]
        let targets = Array(Set(pairs.map(\.target)))
        for try await (agent, dayOK, dayTotal, weekOK, weekTotal) in try await connection.query("""
            SELECT r.agent,
                   count(*) FILTER (WHERE r.outcome = 'ok' AND r.time > now() - interval '24 hours'),
                   count(*) FILTER (WHERE r.outcome <> 'skipped' AND r.time > now() - interval '24 hours'),
                   count(*) FILTER (WHERE r.outcome = 'ok'),
                   count(*) FILTER (WHERE r.outcome <> 'skipped')
            FROM probe_results r
            JOIN unnest(\(pairs.map(\.agent))::text[], \(pairs.map(\.target))::text[]) AS p(agent, target)
              ON r.agent = p.agent AND r.target = p.target
            WHERE r.target = ANY(\(targets)::text[]) AND r.time > now() - interval '7 days'
            GROUP BY r.agent
            """, logger: logger).decode((String, Int, Int, Int, Int).self) {
            day[agent] = FleetEndpointDetail.Uptime(ok: dayOK, total: dayTotal)
            week[agent] = FleetEndpointDetail.Uptime(ok: weekOK, total: weekTotal)
        }
        return (day, week)
    }

    /// Outbox rows not delivered yet.
    public static func pendingCount(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var count = 0
        for try await value in try await connection.query(
            "SELECT count(*) FROM fleet_alert_outbox WHERE state = 'pending'", logger: logger).decode(Int.self) { count = value }
        return count
    }
}
