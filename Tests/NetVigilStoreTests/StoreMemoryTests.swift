import GRDB
import GRDBSQLite
import XCTest
@testable import NetVigilStore

final class StoreMemoryTests: XCTestCase {
    /// Bytes the writer connection's page cache holds (`SQLITE_DBSTATUS_CACHE_USED`).
    private func writerCacheBytes(_ store: Store) -> Int32 {
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
        let filled = writerCacheBytes(store)
        XCTAssertGreaterThan(filled, 1_000_000, "3,000 results leave their pages in the writer's cache")
        await store.releaseMemory()
        let released = writerCacheBytes(store)
        XCTAssertLessThan(released, filled / 10, "released \(filled) -> \(released) bytes")
        // Readers were closed; a read opens one again, and writes go on.
        try await store.write(WriteBatch(probes: [Fixtures.probe(3_000)]))
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 3_001)
    }
}
