import Foundation
import GRDB
import Logging
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// `statistics()` keeps the results and reachability counts from the process's own writes once the tally is taken:
/// equal to `COUNT(*)` after inserts, retention and a failed batch, and taken by the writer service as it starts.
final class RowTallyTests: XCTestCase {
    private func counted(_ store: Store) throws -> (Int, Int) {
        try store.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe_results") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reachability_events") ?? -1)
        }
    }

    private func assertTallyMatches(_ store: Store, _ message: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let statistics = try await store.statistics()
        let (probes, events) = try counted(store)
        XCTAssertEqual(statistics.probeResults, probes, message, file: file, line: line)
        XCTAssertEqual(statistics.reachabilityEvents, events, message, file: file, line: line)
    }

    func testTallyFollowsInsertsRetentionAndAFailedBatch() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let old = Timestamp(milliseconds: 1_000)
        try await store.write(WriteBatch(probes: (0..<30).map { Fixtures.probe($0, at: old.adding(.milliseconds($0))) }))
        XCTAssertNil(store.rowTally.current, "not taken before the writer starts")
        try await assertTallyMatches(store, "counted by a scan before the tally")
        try await store.startRowTally()
        XCTAssertEqual(store.rowTally.current, RowTally.Counts(probeResults: 30, reachabilityEvents: 0))

        try await store.write(WriteBatch(probes: (30..<70).map { Fixtures.probe($0) },
                                         reachabilityEvents: (0..<5).map { Fixtures.reachability($0) }))
        try await assertTallyMatches(store, "after inserts")
        XCTAssertEqual(store.rowTally.current?.probeResults, 70)

        let summary = try await store.prune(olderThan: old.adding(.milliseconds(20)), batchSize: 7)
        XCTAssertEqual(summary.probeResults, 20)
        try await assertTallyMatches(store, "after retention in several batches")
        XCTAssertEqual(store.rowTally.current?.probeResults, 50)

        try await store.pool.write { db in
            try db.execute(sql: "CREATE TRIGGER fail BEFORE INSERT ON alerts WHEN NEW.target = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END")
        }
        var bad = Fixtures.alert(1)
        bad.target = "boom"
        do {
            try await store.write(WriteBatch(probes: [Fixtures.probe(99)], alerts: [bad]))
            XCTFail("expected the batch to fail")
        } catch {}
        XCTAssertNil(store.rowTally.current, "a failed batch that had adjusted the tally forgets it")
        try await assertTallyMatches(store, "after the rolled-back batch")
    }

    func testTheWriterServiceTakesTheTallyAsItStarts() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("n.sqlite")
        do {
            let store = try Store.open(path: path)
            try await store.write(WriteBatch(probes: (0..<12).map { Fixtures.probe($0) }))
        }
        let store = try Store.open(path: path)
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let runner = Task { try await writer.run() }
        try await writer.write(WriteBatch(probes: [Fixtures.probe(12)], reachabilityEvents: [Fixtures.reachability(0)]))
        XCTAssertEqual(store.rowTally.current, RowTally.Counts(probeResults: 13, reachabilityEvents: 1),
                       "rows of an earlier run counted at start, the writer's own rows added")
        writer.close()
        try await runner.value
        try await assertTallyMatches(store, "after the writer stopped")
    }
}
