import Foundation
import GRDB
import GRDBSQLite

/// A GRDB statement driven through the SQLite C API: values are bound with `sqlite3_bind_*` and columns read with
/// `sqlite3_column_*`, without `StatementArguments` or `Row` boxing. The hot paths (batch insert, export) use it.
///
/// Text is bound and read with the semantics GRDB uses for `String` (bound up to the first NUL, read as C
/// strings), so values stored or exported through either path are identical. Use it only inside the database
/// access that made the statement, and do not mix it with GRDB's own execution methods on the same statement.
struct RawStatement {
    let statement: Statement
    let handle: SQLiteStatement

    init(_ statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
    }

    /// `SQLITE_TRANSIENT`: SQLite copies bound text before `bind` returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    // MARK: binding (1-based indexes)

    /// Resets the statement for another execution (bindings are replaced one by one, so none are cleared).
    func reset() {
        sqlite3_reset(handle)
    }

    func bind(_ value: Int64, at index: CInt) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ value: Int64?, at index: CInt) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ value: Int?, at index: CInt) {
        bind(value.map(Int64.init), at: index)
    }

    func bind(_ value: Double?, at index: CInt) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ value: String?, at index: CInt) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        _ = value.withCString { sqlite3_bind_text(handle, index, $0, -1, Self.transient) }
    }

    /// Runs a statement that returns no rows (INSERT, UPDATE), throwing SQLite's error.
    func execute(_ db: Database) throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(db, code: code) }
        sqlite3_reset(handle)
    }

    // MARK: reading (0-based columns)

    /// Advances to the next row: true on a row, false at the end.
    func step(_ db: Database) throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw error(db, code: code)
        }
    }

    func isNull(_ column: CInt) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(_ column: CInt) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func int64OrNil(_ column: CInt) -> Int64? {
        isNull(column) ? nil : sqlite3_column_int64(handle, column)
    }

    func doubleOrNil(_ column: CInt) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(handle, column)
    }

    /// The column's text bytes up to the first NUL (what GRDB's `String` decoding keeps); nil for NULL.
    /// Valid until the next step or reset.
    func text(_ column: CInt) -> UnsafeBufferPointer<UInt8>? {
        // NULL is the only value without text (an empty string has a pointer to its terminator).
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        let end = memchr(pointer, 0, count).map { UnsafeRawPointer($0) - UnsafeRawPointer(pointer) } ?? count
        return UnsafeBufferPointer(start: pointer, count: end)
    }

    /// The column as a `String`, decoded like GRDB decodes it; nil for NULL.
    func string(_ column: CInt) -> String? {
        text(column).map { String(decoding: $0, as: UTF8.self) }
    }

    private func error(_ db: Database, code: CInt) -> DatabaseError {
        let extended = sqlite3_extended_errcode(db.sqliteConnection)
        let error = DatabaseError(resultCode: ResultCode(rawValue: extended == 0 ? code : extended),
                                  message: db.lastErrorMessage, sql: statement.sql)
        sqlite3_reset(handle)
        return error
    }
}
