/// Rows of one stream after a cursor, oldest first, as the shipper sends them.
public struct ShippingPage: Sendable, Equatable {
    /// One local row: its id (the sequence PostgreSQL keys it by), time and JSON object.
    public struct Row: Sendable, Equatable {
        public var sequence: Int64
        public var timeMilliseconds: Int64
        public var json: String
    }

    public var stream: ShippedStream
    /// At most the asked limit, ids ascending.
    public var rows: [Row]
    /// Rows after the cursor not in this page (the backlog beyond it).
    public var remaining: Int
    /// Rows the cursor had not reached that retention has deleted (ids below the oldest kept row): lost to the fleet,
    /// counted so that they are reported, never silently skipped.
    public var expired: Int64
    /// The table's ids restarted below the cursor: SQLite gives a new row the highest id plus one, so a table that
    /// retention emptied starts again at 1. The shipper then starts over from 0 (the central key includes the time,
    /// so the new rows cannot collide with the old ones).
    public var restarted: Bool = false

    /// The JSON array of the rows' objects: one `jsonb` parameter for the whole batch.
    public var jsonArray: String {
        var text = "["
        text.reserveCapacity(rows.reduce(2) { $0 + $1.json.utf8.count + 1 })
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            text += row.json
        }
        return text + "]"
    }
}
