import GRDB

extension Store {
    /// The newest outbox row of one (target, kind): whether that alert was last firing or resolved.
    public struct LatestAlert: Sendable, Equatable {
        public var target: String
        public var kind: String
        /// The payload's `state`: `firing` or `resolved`.
        public var state: String
        /// When the row was written (the last notice).
        public var time: Timestamp
        /// The payload's `since`, when present.
        public var since: Timestamp?
        /// The payload's `message`.
        public var message: String

        public init(target: String, kind: String, state: String, time: Timestamp, since: Timestamp?, message: String) {
            self.target = target
            self.kind = kind
            self.state = state
            self.time = time
            self.since = since
            self.message = message
        }
    }

    static let alertColumns = """
        id, time_ms, kind, target, sink, payload, state, attempts, next_attempt_ms, idempotency_key, last_error, delivered_ms
        """

    /// Pending rows whose next attempt is due at `now`, oldest first, at most `limit`.
    ///
    /// A row is held back while an older row of the same (sink, target, kind) is still pending, so a sink never
    /// gets a `resolved` before the `firing` it resolves.
    public func dueAlerts(now: Timestamp, limit: Int = 100) async throws -> [AlertRecord] {
        try await readAsync { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(Store.alertColumns) FROM alerts a
                WHERE a.state = 'pending' AND a.next_attempt_ms <= ?
                  AND NOT EXISTS (SELECT 1 FROM alerts b
                                  WHERE b.state = 'pending' AND b.sink = a.sink AND b.target = a.target AND b.kind = a.kind
                                    AND (b.time_ms < a.time_ms OR (b.time_ms = a.time_ms AND b.id < a.id)))
                ORDER BY a.time_ms, a.id
                LIMIT ?
                """, arguments: [now.milliseconds, limit])
            return rows.map(Store.alertRecord)
        }
    }

    /// The earliest `next_attempt_ms` of any pending row, nil when none is pending.
    public func nextAlertAttempt() async throws -> Timestamp? {
        try await readAsync { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(next_attempt_ms) FROM alerts WHERE state = 'pending'").map(Timestamp.init(milliseconds:))
        }
    }

    /// Marks a row delivered (a sink acknowledged it). Returns false when no pending row has that id.
    @discardableResult
    public func markAlertDelivered(id: Int64, at time: Timestamp) async throws -> Bool {
        try await writeAsync { db in
            try db.execute(sql: """
                UPDATE alerts SET state = 'delivered', delivered_ms = ?, attempts = attempts + 1, last_error = NULL
                WHERE id = ? AND state = 'pending'
                """, arguments: [time.milliseconds, id])
            return db.changesCount > 0
        }
    }

    /// Records a failed attempt: attempts + 1, the error, and when to try again. The row stays pending.
    @discardableResult
    public func scheduleAlertRetry(id: Int64, nextAttempt: Timestamp, error: String) async throws -> Bool {
        try await writeAsync { db in
            try db.execute(sql: """
                UPDATE alerts SET attempts = attempts + 1, next_attempt_ms = ?, last_error = ?
                WHERE id = ? AND state = 'pending'
                """, arguments: [nextAttempt.milliseconds, String(error.prefix(2_000)), id])
            return db.changesCount > 0
        }
    }

    /// How many rows wait for delivery.
    public func pendingAlertCount() async throws -> Int {
        try await readAsync { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alerts WHERE state = 'pending'") ?? 0
        }
    }

    /// One row by id (any state).
    public func alert(id: Int64) async throws -> AlertRecord? {
        try await readAsync { db in
            try Row.fetchOne(db, sql: "SELECT \(Store.alertColumns) FROM alerts WHERE id = ?", arguments: [id]).map(Store.alertRecord)
        }
    }

    /// Every row, oldest first (tests and diagnostics; the outbox is small).
    public func alerts(limit: Int = 10_000) async throws -> [AlertRecord] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: "SELECT \(Store.alertColumns) FROM alerts ORDER BY time_ms, id LIMIT ?",
                             arguments: [limit]).map(Store.alertRecord)
        }
    }

    /// The newest row of every (target, kind), whatever its delivery state: what the alert engine restores at start.
    public func latestAlerts() async throws -> [LatestAlert] {
        try await readAsync { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT target, kind, time_ms,
                       json_extract(payload, '$.state') AS alert_state,
                       json_extract(payload, '$.since') AS since,
                       json_extract(payload, '$.message') AS message
                FROM (SELECT target, kind, time_ms, payload,
                             ROW_NUMBER() OVER (PARTITION BY target, kind ORDER BY time_ms DESC, id DESC) AS position
                      FROM alerts WHERE json_valid(payload))
                WHERE position = 1
                ORDER BY target, kind
                """)
            return rows.map { row in
                LatestAlert(target: row["target"], kind: row["kind"], state: row["alert_state"] ?? "",
                            time: Timestamp(milliseconds: row["time_ms"]),
                            since: (row["since"] as String?).flatMap { Timestamp.parse($0) },
                            message: row["message"] ?? "")
            }
        }
    }

    /// The newest row of every (target, kind) sent to `sink`, whatever its delivery state: the alerts an
    /// Alertmanager sink re-sends while they fire.
    public func latestAlerts(sink: String) async throws -> [AlertRecord] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.alertColumns) FROM (
                    SELECT *, ROW_NUMBER() OVER (PARTITION BY target, kind ORDER BY time_ms DESC, id DESC) AS position
                    FROM alerts WHERE sink = ?)
                WHERE position = 1
                ORDER BY target, kind
                """, arguments: [sink]).map(Store.alertRecord)
        }
    }

    static func alertRecord(_ row: Row) -> AlertRecord {
        AlertRecord(id: row["id"], time: Timestamp(milliseconds: row["time_ms"]), kind: row["kind"], target: row["target"],
                    sink: row["sink"], payloadJSON: row["payload"],
                    state: AlertDeliveryState(rawValue: row["state"]) ?? .pending, attempts: row["attempts"],
                    nextAttemptAt: Timestamp(milliseconds: row["next_attempt_ms"]), idempotencyKey: row["idempotency_key"],
                    lastError: row["last_error"], deliveredAt: (row["delivered_ms"] as Int64?).map(Timestamp.init(milliseconds:)))
    }

    private func readAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    private func writeAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writeChecked(body)
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}
