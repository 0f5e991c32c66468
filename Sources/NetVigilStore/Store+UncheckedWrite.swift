import GRDB

extension Store {
    /// Runs `body` in one immediate write transaction with SQLite's foreign-key enforcement off, and turns it back
    /// on afterwards. For writes whose references the caller guarantees (batch inserts, retention's chain cleanup):
    /// enforcement would make SQLite keep statement journals or scan unindexed columns. Any error rolls the whole
    /// transaction back.
    ///
    /// `largeCache`: the transaction runs with the writer's large page cache (`largeBatchCacheKiB`), and the cache
    /// is cut back to `writerCacheKiB` after it, which frees the pages beyond that.
    func writeWithoutForeignKeys<T: Sendable>(largeCache: Bool = false,
                                              _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            if largeCache { try db.execute(sql: "PRAGMA cache_size = -\(Store.largeBatchCacheKiB)") }
            defer { if largeCache { try? db.execute(sql: "PRAGMA cache_size = -\(Store.writerCacheKiB)") } }
            var value: T?
            try db.inTransaction(.immediate) {
                value = try body(db)
                return .commit
            }
            return value!
        }
    }
}
