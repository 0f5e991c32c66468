import Logging
import PostgresNIO

/// `netvigil fleet migrate`: brings a database to ``FleetSchema/currentVersion``, makes the day partitions ahead and
/// drops those past the retention.
///
/// Everything runs in one transaction that first takes ``FleetSchema/advisoryLock``: run twice, it does nothing the
/// second time; run from two hosts at once, the second waits for the first and then finds the work done. The lock is
/// transaction-scoped, so nothing outlives the transaction (a session lock would stay with a pooled connection).
public enum FleetMigrator {
    /// What one run did.
    public struct Summary: Sendable, Equatable {
        /// Versions applied by this run (empty when the schema was current).
        public var applied: [Int] = []
        /// Partitions made (three tables × days).
        public var createdPartitions = 0
        /// Partitions dropped because their day is older than the retention.
        public var droppedPartitions: [String] = []
        /// The retention in force, in days.
        public var retentionDays = 0
    }

    /// The retention when none was ever set.
    public static let defaultRetentionDays = 400
    /// Days of partitions made ahead of today (UTC).
    public static let daysAhead = 7

    /// Migrates through `connection` (the schema's owner: a superuser or a role with CREATEROLE that owns the
    /// database). `retentionDays` replaces the stored retention when given.
    public static func migrate(connection: PostgresConnection, retentionDays: Int?, logger: Logger) async throws(FleetError) -> Summary {
        do {
            return try await inTransaction(connection, logger: logger) {
                try await migrateLocked(connection: connection, retentionDays: retentionDays, logger: logger)
            }
        } catch {
            throw FleetError.classify(error)
        }
    }

    private static func migrateLocked(connection: PostgresConnection, retentionDays: Int?, logger: Logger) async throws -> Summary {
        var summary = Summary()
        try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.advisoryLock))", logger: logger)
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS netvigil_schema_migrations (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var applied = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM netvigil_schema_migrations", logger: logger)
            .decode(Int.self) {
            applied.insert(version)
        }
        if let newest = applied.max(), newest > FleetSchema.currentVersion {
            throw FleetError(.usage, "the database's schema is version \(newest), newer than this netvigil's "
                             + "(\(FleetSchema.currentVersion)): upgrade netvigil before migrating")
        }
        for migration in FleetSchema.migrations where !applied.contains(migration.version) {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("INSERT INTO netvigil_schema_migrations (version) VALUES (\(migration.version))", logger: logger)
            summary.applied.append(migration.version)
        }
        if let retentionDays {
            try await connection.query("""
                INSERT INTO netvigil_settings (key, value) VALUES ('retention_days', \(String(retentionDays)))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
        }
        var retention = defaultRetentionDays
        for try await value in try await connection.query("SELECT value FROM netvigil_settings WHERE key = 'retention_days'",
                                                          logger: logger).decode(String.self) {
            retention = Int(value) ?? retention
        }
        summary.retentionDays = retention
        for try await made in try await connection.query("""
            SELECT netvigil_ensure_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + \(daysAhead)::integer)
            """, logger: logger).decode(Int.self) {
            summary.createdPartitions = made
        }
        // A partition goes whole once its day ended more than `retention` days ago (never row by row).
        var expired: [String] = []
        for try await name in try await connection.query("""
            SELECT c.relname FROM pg_inherits i
            JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
            WHERE p.relname IN ('probe_results', 'reachability_events', 'alert_events')
              AND c.relname ~ '_[0-9]{8}$'
              AND to_date(right(c.relname, 8), 'YYYYMMDD') + 1 <= (now() AT TIME ZONE 'UTC')::date - \(retention)::integer
            ORDER BY c.relname
            """, logger: logger).decode(String.self) {
            expired.append(name)
        }
        for name in expired {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(quoteIdentifier(name))"), logger: logger)
        }
        summary.droppedPartitions = expired
        // The hub's delivered notices and long-resolved alerts go with the same retention (they are small and not
        // partitioned: deleted by row). Pending notices and firing alerts always stay.
        try await connection.query("""
            DELETE FROM fleet_alert_outbox
            WHERE state = 'delivered' AND delivered < now() - make_interval(days => \(retention)::integer)
            """, logger: logger)
        try await connection.query("""
            DELETE FROM fleet_alerts
            WHERE state = 'resolved' AND updated < now() - make_interval(days => \(retention)::integer)
            """, logger: logger)
        return summary
    }

    /// Runs `body` between BEGIN and COMMIT, or ROLLBACK when it throws.
    static func inTransaction<T>(_ connection: PostgresConnection, logger: Logger, _ body: () async throws -> T) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        do {
            let value = try await body()
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// `name` as a quoted SQL identifier.
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
