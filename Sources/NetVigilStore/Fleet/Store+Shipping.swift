import GRDB

extension Store {
    /// The fleet shipper's cursors: per stream, the highest local id PostgreSQL has acknowledged (0: none yet).
    public func shippingCursors() async throws -> [ShippedStream: Int64] {
        do {
            return try await pool.read { db in
                var cursors = Dictionary(uniqueKeysWithValues: ShippedStream.allCases.map { ($0, Int64(0)) })
                for row in try Row.fetchAll(db, sql: "SELECT stream, shipped_id FROM fleet_cursors") {
                    if let stream = ShippedStream(rawValue: row["stream"]) { cursors[stream] = row["shipped_id"] }
                }
                return cursors
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Up to `limit` rows of `stream` with ids above `cursor`, in id order, with the backlog behind them.
    public func shippingPage(_ stream: ShippedStream, after cursor: Int64, limit: Int) async throws -> ShippingPage {
        do {
            return try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: stream.jsonSelect, arguments: [cursor, limit]).map {
                    ShippingPage.Row(sequence: $0[0], timeMilliseconds: $0[1], json: $0[2])
                }
                let table = stream.rawValue
                let bounds = try Row.fetchOne(db, sql: "SELECT MIN(id), MAX(id) FROM \(table)")
                let oldest: Int64? = bounds?[0]
                let newest: Int64? = bounds?[1]
                // A short page is everything there is in this snapshot: counting is needed only after a full one
                // (or when only the count is asked for).
                let lastSent = rows.last?.sequence ?? cursor
                let remaining = rows.count < limit ? 0
                    : try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE id > ?", arguments: [lastSent]) ?? 0
                var expired: Int64 = 0
                if let oldest, oldest > cursor + 1, let newest, newest > cursor { expired = oldest - cursor - 1 }
                let restarted = (newest.map { $0 < cursor } ?? false) && rows.isEmpty
                return ShippingPage(stream: stream, rows: rows, remaining: remaining, expired: expired, restarted: restarted)
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Records that PostgreSQL holds every row of `stream` up to id `sequence` (never moves a cursor back).
    public func setShippingCursor(_ stream: ShippedStream, to sequence: Int64) async throws {
        do {
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO fleet_cursors (stream, shipped_id) VALUES (?, ?)
                    ON CONFLICT (stream) DO UPDATE SET shipped_id = MAX(shipped_id, excluded.shipped_id)
                    """, arguments: [stream.rawValue, sequence])
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Starts `stream` over from id 0, after its ids restarted (``ShippingPage/restarted``).
    public func resetShippingCursor(_ stream: ShippedStream) async throws {
        do {
            try await pool.write { db in
                try db.execute(sql: "UPDATE fleet_cursors SET shipped_id = 0 WHERE stream = ?", arguments: [stream.rawValue])
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// The time of the oldest row of `stream` after `cursor` (what the shipping lag is measured from); nil: none.
    public func oldestUnshippedTime(_ stream: ShippedStream, after cursor: Int64) async throws -> Timestamp? {
        do {
            return try await pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT time_ms FROM \(stream.rawValue) WHERE id > ? ORDER BY id LIMIT 1",
                                   arguments: [cursor]).map(Timestamp.init(milliseconds:))
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}
