import GRDB
import GRDBSQLite

extension Store {
    /// An export started reading (see `exportEnded()`).
    func exportBegan() {
        activeExports.add(1, ordering: .relaxed)
    }

    /// An export finished; the last one to leave checkpoints the WAL (a daemon's store only).
    func exportEnded() {
        let remaining = activeExports.subtract(1, ordering: .relaxed).newValue
        if remaining == 0 && !isReadOnly { _ = try? checkpointNow() }
    }

    /// Exports running now.
    public var exportsInProgress: Int { activeExports.load(ordering: .relaxed) }

    /// Copies the WAL into the database (PASSIVE: never waits on readers or blocks the writer for long) and, when
    /// every frame was copied, truncates the WAL file to zero bytes. Returns whether it was truncated.
    @discardableResult
    public func checkpoint() async throws -> Bool {
        guard !isReadOnly else { return false }
        do {
            return try await pool.writeWithoutTransaction { db in try Self.checkpoint(db) }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// `checkpoint()` on the calling thread (for the exporter's own thread).
    func checkpointNow() throws -> Bool {
        guard !isReadOnly else { return false }
        do {
            return try pool.writeWithoutTransaction { db in try Self.checkpoint(db) }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    private static func checkpoint(_ db: Database) throws -> Bool {
        let passive = try db.checkpoint(.passive)
        guard passive.walFrameCount > 0, passive.checkpointedFrameCount == passive.walFrameCount else { return false }
        // Without waiting on readers: the busy timeout would stall the writer for up to 5 s.
        sqlite3_busy_timeout(db.sqliteConnection, 0)
        defer { sqlite3_busy_timeout(db.sqliteConnection, Store.busyTimeoutMilliseconds) }
        do {
            try db.checkpoint(.truncate)
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return false  // a reader still uses the WAL: the next checkpoint tries again
        }
    }
}
