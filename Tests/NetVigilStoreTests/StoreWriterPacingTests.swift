import GRDB
import Logging
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilStore

/// The writer's pacing: one transaction per `commitInterval` at most, gathering what comes within it.
final class StoreWriterPacingTests: XCTestCase {
    func testBatchesWithinTheIntervalShareOneTransaction() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let commits = try await CommitCounter.attached(to: store)
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), commitInterval: .seconds(5))
        let running = Task { try await writer.run() }

        try await writer.write(WriteBatch(probes: [Fixtures.probe(0)]))
        let afterFirst = commits.count
        XCTAssertGreaterThanOrEqual(afterFirst, 1)
        // Spaced out, so that a writer without pacing would have committed each on its own.
        let committed = Mutex<[Int]>([])
        for i in 1...3 {
            writer.submit(WriteBatch(probes: [Fixtures.probe(i)]), onCommit: { committed.withLock { $0.append(i) } })
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(commits.count, afterFirst, "nothing is committed before the interval ends")
        try await writer.write(WriteBatch(probes: [Fixtures.probe(4)]))

        XCTAssertEqual(commits.count, afterFirst + 1, "the four batches of the interval went in one transaction")
        XCTAssertEqual(committed.withLock { $0 }, [1, 2, 3])
        writer.close()
        try await running.value
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 5)
    }

    func testAQuietStoreAFullTransactionAndClosingDoNotWaitForTheInterval() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        // Two minutes: a step that waited for the interval's end would take that long and fail its time check.
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), maxRowsPerTransaction: 10,
                                 commitInterval: .seconds(120))
        let running = Task { try await writer.run() }
        let clock = ContinuousClock()

        // The store was quiet: the first batch is committed at once.
        var elapsed = try await clock.measure { try await writer.write(WriteBatch(probes: [Fixtures.probe(0)])) }
        XCTAssertLessThan(elapsed, .seconds(30), "the first batch waited")

        // Within the interval, a full transaction's worth is committed at once too.
        let full = (1...10).map { Fixtures.probe($0) }
        elapsed = await clock.measure {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                writer.submit(WriteBatch(probes: full), onCommit: { done.resume() })
            }
        }
        XCTAssertLessThan(elapsed, .seconds(30), "a full transaction waited")

        // Closing ends the gathering: what was queued is written and `run` returns.
        writer.submit(WriteBatch(probes: [Fixtures.probe(11)]))
        XCTAssertEqual(writer.health.queuedRows, 1)
        elapsed = try await clock.measure {
            writer.close()
            try await running.value
        }
        XCTAssertLessThan(elapsed, .seconds(30), "closing waited")
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 12)
        XCTAssertEqual(writer.health.queuedRows, 0)
    }
}

/// Counts the store's committed transactions (a GRDB transaction observer on the writer connection).
private final class CommitCounter: TransactionObserver, Sendable {
    private let commits = Mutex(0)

    var count: Int { commits.withLock { $0 } }

    static func attached(to store: Store) async throws -> CommitCounter {
        let counter = CommitCounter()
        try await store.pool.write { db in db.add(transactionObserver: counter, extent: .databaseLifetime) }
        return counter
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}
