import GRDB

extension Store {
    /// Runs `body` in one immediate write transaction with SQLite's foreign-key enforcement off, and turns it back
    /// on afterwards. For writes whose references the caller guarantees (batch inserts, retention's chain cleanup):
    /// enforcement would make SQLite keep statement journals or scan unindexed columns. Any error rolls the whole
    /// transaction back.
    func writeWithoutForeignKeys<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            var value: T?
            try db.inTransaction(.immediate) {
                value = try body(db)
                return .commit
            }
            return value!
        }
    }
}
