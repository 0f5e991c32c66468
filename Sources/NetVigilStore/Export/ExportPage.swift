/// Where one export page of a kind starts and ends: rows after `after` in (time, id) order, with ids up to `lastID`.
///
/// (time_ms, id) is a total order (ids are unique), so consecutive pages neither repeat nor skip a row; `lastID` is
/// the table's largest id when the export began, so rows written during the export are left out.
struct ExportPageBounds {
    /// The last row of the previous page; nil for the first page.
    var after: (time: Int64, id: Int64)?
    /// The table's largest id when the export began.
    var lastID: Int64

    /// SQL to append after a kind's `WHERE` condition, and its arguments. The id terms are written `+id` so that
    /// SQLite walks the time index (already in (time, rowid) order) instead of the rowid.
    func keyset(alias: String) -> (sql: String, arguments: [Int64OrString]) {
        var sql = " AND +\(alias).id <= ?"
        var arguments: [Int64OrString] = [.int(lastID)]
        if let after {
            sql += " AND \(alias).time_ms >= ? AND (\(alias).time_ms > ? OR +\(alias).id > ?)"
            arguments += [.int(after.time), .int(after.time), .int(after.id)]
        }
        sql += " ORDER BY \(alias).time_ms, \(alias).id LIMIT \(ExportSession.pageRows)"
        return (sql, arguments)
    }
}

/// How a page ended.
struct ExportPageEnd {
    /// Rows the page wrote.
    var rows: Int
    /// Its last row, where the next page starts.
    var last: (time: Int64, id: Int64)?
    /// False once the kind has no more rows.
    var more: Bool
}
