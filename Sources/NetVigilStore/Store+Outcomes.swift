import GRDB

extension Store {
    /// Probe outcomes of one target in one hour.
    public struct OutcomeCount: Sendable, Equatable {
        public var target: String
        /// Start of the hour.
        public var time: Timestamp
        public var ok: Int
        public var failed: Int
    }

    /// Outcome counts per target and hour since `since` (seeds the daemon's uptime ratios at start).
    public func outcomeCounts(since: Timestamp) async throws -> [OutcomeCount] {
        do {
            return try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT target, time_ms / 3600000 AS hour,
                       SUM(outcome = 'ok') AS ok, SUM(outcome = 'failed') AS failed
                FROM probe_results WHERE time_ms >= ? GROUP BY target, hour
                """, arguments: [since.milliseconds])
            return rows.map { row in
                OutcomeCount(target: row["target"], time: Timestamp(milliseconds: (row["hour"] as Int64) * 3_600_000),
                             ok: row["ok"], failed: row["failed"])
            }
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}
