import GRDB
import GRDBSQLite
import Logging
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

final class StoreMemoryTests: XCTestCase {
    /// Bytes the writer connection's page cache holds (`SQLITE_DBSTATUS_CACHE_USED`).
    private static func writerCacheBytes(_ store: Store) -> Int32 {
        store.pool.writeWithoutTransaction { db in
            var current: Int32 = 0, highwater: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highwater, 0)
            return current
        }
    }

    func testReleaseMemoryEmptiesTheWriterPageCacheAndTheStoreStillWorks() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("netvigil.sqlite"))
        try await store.write(WriteBatch(probes: (0..<3_000).map { Fixtures.probe($0, target: "t\($0 % 100)") }))
        let filled = Self.writerCacheBytes(store)
        XCTAssertGreaterThan(filled, 1_000_000, "3,000 results leave their pages in the writer's cache")
        await store.releaseMemory()
        let released = Self.writerCacheBytes(store)
        XCTAssertLessThan(released, filled / 10, "released \(filled) -> \(released) bytes")
        // Readers were closed; a read opens one again, and writes go on.
        try await store.write(WriteBatch(probes: [Fixtures.probe(3_000)]))
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 3_001)
    }

    /// Small batches keep the writer's cache at `writerCacheKiB`; a large batch gets the large cache for its
    /// transaction only, and what it filled beyond the small cache is freed when it commits.
    func testTheWritersCacheIsSizedPerBatch() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("netvigil.sqlite"))
        let limit = Int32(Store.writerCacheKiB * 1_024)
        for batch in 0..<40 {
            try await store.write(WriteBatch(probes: (0..<1_000).map { Fixtures.probe(batch * 1_000 + $0, target: "t\($0)") }))
        }
        let written = try FileManager.default.attributesOfItem(atPath: directory.path("netvigil.sqlite-wal"))[.size] as? Int ?? 0
        let database = try FileManager.default.attributesOfItem(atPath: directory.path("netvigil.sqlite"))[.size] as? Int ?? 0
        XCTAssertGreaterThan(written + database, 2 * Int(limit), "the batches wrote more than twice the small cache")
        XCTAssertLessThanOrEqual(Self.writerCacheBytes(store), limit + limit / 10, "small batches stay within the small cache")
        let large = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe_results") ?? 0 }
        try await store.write(WriteBatch(probes: (0..<Store.largeBatchRows * 10).map {
            Fixtures.probe(large + $0, target: "t\($0 % 5_000)")
        }))
        XCTAssertLessThanOrEqual(Self.writerCacheBytes(store), limit + limit / 10, "within the small cache after the large batch")
        let cacheSize = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        XCTAssertEqual(cacheSize, -Store.writerCacheKiB)
    }

    /// Each retention pass gives SQLite's caches back and then runs the daemon's `afterRelease` (which drops the
    /// code pages the pass faulted in), pass after pass.
    func testEveryRetentionPassEndsWithTheReleaseHook() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("netvigil.sqlite"))
        try await store.write(WriteBatch(probes: (0..<3_000).map { Fixtures.probe($0, target: "t\($0 % 100)") }))
        XCTAssertGreaterThan(Self.writerCacheBytes(store), 1_000_000)
        let (passes, continuation) = AsyncStream.makeStream(of: Int32.self)
        let service = RetentionService(store: store, retention: .seconds(86_400), interval: .milliseconds(50),
                                       logger: Logger(label: "test"), afterRelease: { continuation.yield(Self.writerCacheBytes(store)) })
        let running = Task { try await service.run() }
        var cacheAtHook: [Int32] = []
        for await bytes in passes {
            cacheAtHook.append(bytes)
            if cacheAtHook.count == 3 { break }
        }
        running.cancel()
        try await running.value
        XCTAssertEqual(cacheAtHook.count, 3, "three passes, each followed by the hook")
        XCTAssertTrue(cacheAtHook.allSatisfy { $0 < 100_000 }, "the hook runs after the caches were released: \(cacheAtHook)")
    }
}
