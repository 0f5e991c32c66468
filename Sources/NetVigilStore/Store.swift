import Foundation
import GRDB
import Synchronization

/// netvigil's SQLite history: probe results, certificates, reachability events and the alert outbox.
///
/// One `DatabasePool` in WAL mode: GRDB serializes writers, readers never block the writer.
public final class Store: Sendable {
    /// Path of the database file.
    public let path: String
    /// Whether the store was opened read-only (export, status).
    public let isReadOnly: Bool
    let pool: DatabasePool
    /// Ids of stored certificates (by sha256) and chains (by fingerprint), so repeated chains cost no lookups.
    /// Changed only after a commit, or cleared inside the transaction that deletes rows.
    let knownIDs = Mutex(KnownIDs())
    /// Rows of the results and reachability tables, kept by this process's writes (see ``RowTally``).
    let rowTally = RowTally()
    /// Exports reading now; the last to finish checkpoints the WAL.
    let activeExports = Atomic<Int>(0)
    static let idCacheLimit = 50_000
    /// Page size of databases this version creates.
    static let pageSize = 16_384
    /// Page cache of the writer connection in KiB between large batches (readers keep 16 MiB). A daemon's steady
    /// batches (a few hundred results) need little: a larger cache only kept every page written, so RSS grew with
    /// the database.
    static let writerCacheKiB = 8_192
    /// Page cache of the writer connection in KiB while it writes a batch of `largeBatchRows` rows or more (a burst
    /// after an outage, an import): such a batch dirties one (target, time) index leaf per target besides the
    /// table's pages, and they should not be evicted and re-read within the batch.
    static let largeBatchCacheKiB = 65_536
    /// Rows from which a batch gets the large cache.
    static let largeBatchRows = 2_000
    /// How long a connection waits for a lock before failing with SQLITE_BUSY.
    static let busyTimeoutMilliseconds: Int32 = 5_000
    /// Bytes the WAL file is truncated to after a checkpoint reset it (64 MiB). Readers hold short transactions
    /// (exports page), so checkpoints complete and the WAL stays near SQLite's 1,000-page auto-checkpoint.
    public static let journalSizeLimit = 64 * 1024 * 1024

    struct KnownIDs {
        var certificates: [String: Int64] = [:]
        var chains: [ChainKey: Int64] = [:]

        mutating func merge(_ other: KnownIDs) {
            if certificates.count + other.certificates.count > Store.idCacheLimit { certificates.removeAll(keepingCapacity: true) }
            if chains.count + other.chains.count > Store.idCacheLimit { chains.removeAll(keepingCapacity: true) }
            certificates.merge(other.certificates) { _, new in new }
            chains.merge(other.chains) { _, new in new }
        }
    }

    private init(path: String, pool: DatabasePool, readOnly: Bool) {
        self.path = path
        self.pool = pool
        self.isReadOnly = readOnly
    }

    /// Opens (creating when needed) the database for the daemon: directory 0700, file 0600, migrations applied.
    ///
    /// Only a regular file is opened (a symbolic link to one is followed; its mode is left as it is); a device,
    /// FIFO, socket, directory or dangling link is refused with a `.io` error before anything touches it.
    public static func open(path: String) throws -> Store {
        try prepareFile(path)

        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeoutMilliseconds) / 1_000)
        configuration.prepareDatabase { db in
            // 16 KiB pages: a third fewer B-tree pages and WAL frames per inserted row than 4 KiB (faster
            // ingest). Takes effect only when the file is still empty (before WAL mode is set): existing
            // databases keep their page size.
            try db.execute(sql: "PRAGMA page_size = \(Store.pageSize)")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Memory-mapped reads avoid a copy per page; a 16 MiB page cache keeps hot index pages.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            try db.execute(sql: "PRAGMA cache_size = -16384")
            // A checkpoint that reset the WAL truncates it to this size (see `journalSizeLimit`).
            try db.execute(sql: "PRAGMA journal_size_limit = \(Store.journalSizeLimit)")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = StoreSchema.migrator
            try pool.read { db in
                if try migrator.hasBeenSuperseded(db) {
                    throw StoreError(.newerSchema, path: path, message: "written by a newer netvigil (unknown schema migrations)")
                }
            }
            try migrator.migrate(pool)
            // The writer's cache is sized per batch (see `writerCacheKiB` and `largeBatchCacheKiB`).
            // Statement journals and temporary tables in memory: with temp_store=FILE a statement journal spills to a
            // temporary file past 64 KiB (four 16 KiB pages), and a batch that needed statement journals would write
            // its pages to disk twice (batches avoid them now, see `write(_:)`).
            try pool.writeWithoutTransaction { db in
                // The writer reads through its page cache, not the memory map: each fault on the map brings in a
                // whole page-cache folio around the page read, so an idle daemon's map of its database kept growing
                // with the pages around those inserts. The cache is freed after each retention pass (`releaseMemory`);
                // ingest is as fast without the map.
                try db.execute(sql: "PRAGMA mmap_size = 0")
                try db.execute(sql: "PRAGMA cache_size = -\(Store.writerCacheKiB)")
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw classify(error, path: path)
        }
        return Store(path: path, pool: pool, readOnly: false)
    }

    /// Opens an existing database read-only (export, status); works while the daemon writes.
    public static func openReadOnly(path: String) throws -> Store {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.missing, path: path, message: "no such database file")
        }
        _ = try fileState(path)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.io, path: path, message: "database file is not readable (permission denied)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.read { db in
                let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                let missing = StoreSchema.requiredTables.filter { !tables.contains($0) }
                if !missing.isEmpty {
                    throw StoreError(.notNetvigil, path: path, message: "not a netvigil database (missing tables: \(missing.joined(separator: ", ")))")
                }
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check(1)") ?? "ok"
                if check != "ok" {
                    throw StoreError(.corrupt, path: path, message: "database is corrupt: \(check)")
                }
            }
            return Store(path: path, pool: pool, readOnly: true)
        } catch let error as StoreError {
            throw error
        } catch {
            throw classify(error, path: path)
        }
    }

    /// Maps SQLite errors to store errors with a message an operator can act on.
    static func classify(_ error: Error, path: String) -> StoreError {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                return StoreError(.notADatabase, path: path, message: "not an SQLite database")
            case .SQLITE_CORRUPT:
                return StoreError(.corrupt, path: path, message: "database is corrupt: \(error.message ?? "")")
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_FULL:
                return StoreError(.io, path: path, message: "\(error.message ?? "I/O error") (\(error.resultCode))")
            default:
                return StoreError(.io, path: path, message: error.message ?? "\(error)")
            }
        }
        return StoreError(.io, path: path, message: describe(error))
    }

    static func describe(_ error: Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? "\(error)"
    }

    /// Whether a write transaction can be taken right now (used by `/healthz`).
    public func isWritable() async -> Bool {
        guard !isReadOnly else { return false }
        do {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE; COMMIT")
            }
            return true
        } catch {
            return false
        }
    }

    /// Reads with a consistent snapshot (synchronous; do not call from a cooperative-pool hot path).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch let error as DatabaseError {
            throw Store.classify(error, path: path)
        }
    }
}
