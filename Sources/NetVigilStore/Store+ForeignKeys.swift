import GRDB

extension Store {
    /// Runs `body` in one immediate write transaction with SQLite's foreign-key enforcement off. For writes whose
    /// references the caller guarantees (batch inserts, retention's chain cleanup): enforcement would make SQLite
    /// keep statement journals or scan unindexed columns. Any error rolls the whole transaction back.
    ///
    /// Enforcement stays off after it, until a ``writeChecked(_:)`` needs it (see ``enforceForeignKeys(_:in:)``).
    ///
    /// `largeCache`: the transaction runs with the writer's large page cache (`largeBatchCacheKiB`), and the cache
    /// is cut back to `writerCacheKiB` after it, which frees the pages beyond that.
    func writeWithoutForeignKeys<T: Sendable>(largeCache: Bool = false,
                                              _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            try Self.enforceForeignKeys(false, in: db)
            if largeCache { try db.execute(sql: "PRAGMA cache_size = -\(Store.largeBatchCacheKiB)") }
            defer { if largeCache { try? db.execute(sql: "PRAGMA cache_size = -\(Store.writerCacheKiB)") } }
            return try Self.immediateTransaction(db, body)
        }
    }

    /// Runs `body` in one immediate write transaction with foreign keys enforced: every write of the store that is
    /// not a ``writeWithoutForeignKeys(largeCache:_:)``.
    func writeChecked<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            try Self.enforceForeignKeys(true, in: db)
            return try Self.immediateTransaction(db, body)
        }
    }

    /// Switches the writer connection's foreign-key enforcement only when it is not already `on`.
    ///
    /// Each switch expires every statement the connection has prepared (SQLite compiles a flag pragma with
    /// `OP_Expire`), so each is parsed again when next run: switched off and back on around every batch, the cached
    /// INSERTs would be parsed again for every batch. The pragma is a no-op inside a transaction, so
    /// this runs before the transaction begins.
    static func enforceForeignKeys(_ on: Bool, in db: Database) throws {
        let enforced = try Bool.fetchOne(db.cachedStatement(sql: "PRAGMA foreign_keys")) ?? false
        guard enforced != on else { return }
        try db.execute(sql: on ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF")
    }

    private static func immediateTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        var value: T?
        try db.inTransaction(.immediate) {
            value = try body(db)
            return .commit
        }
        return value!
    }
}
