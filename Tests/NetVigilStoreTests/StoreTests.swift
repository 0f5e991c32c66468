import Foundation
import GRDB
import GRDBSQLite
import Logging
import NetVigilTestSupport
import ServiceLifecycle
import XCTest
@testable import NetVigilStore

final class StoreTests: XCTestCase {
    func testOpenCreatesDirectoryAndPrivateFileWithSchema() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state/sub/netvigil.sqlite")
        let store = try Store.open(path: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: directory.path("state/sub"))
        XCTAssertEqual((dirAttributes[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        let tables = try store.read { db in try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type='table'") }
        for table in StoreSchema.requiredTables { XCTAssertTrue(tables.contains(table), table) }
        let journal = try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(journal, "wal")
        let synchronous = try store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        XCTAssertEqual(synchronous, 1) // NORMAL
        let pageSize = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        XCTAssertEqual(pageSize, Store.pageSize, "new databases get the larger page size")
        let writerCache = try store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        XCTAssertEqual(writerCache, -Store.writerCacheKiB)
        let readerCache = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        XCTAssertEqual(readerCache, -16_384)
        // Readers map the file; the writer reads through its own page cache, which the retention pass frees.
        XCTAssertEqual(try store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") }, 0)
        XCTAssertEqual(try store.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") }, 268_435_456)
    }

    func testReopeningExistingFileKeepsDataAndMigrationsOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("netvigil.sqlite")
        do {
            let store = try Store.open(path: path)
            try await store.write(WriteBatch(probes: [Fixtures.probe(1)]))
        }
        let store = try Store.open(path: path)
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 1)
        let migrations = try store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(migrations, ["v1", "v2", "v3", "v4", "v5"])
    }

    func testNewerSchemaIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("netvigil.sqlite")
        let store = try Store.open(path: path)
        try await store.pool.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-future')") }
        XCTAssertThrowsError(try Store.open(path: path)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .newerSchema)
        }
    }

    func testCertificatesAreDeduplicatedAndLinkedInOrder() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: (0..<10).map { Fixtures.probe($0) }))
        try await store.write(WriteBatch(probes: [Fixtures.probe(10)]))
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 11)
        XCTAssertEqual(stats.certificates, 3)
        let chains = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM certificate_chains") }
        XCTAssertEqual(chains, 1, "served and validated chains are the same list: stored once")
        let links = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM chain_certificates") }
        XCTAssertEqual(links, 3)
        let order = try store.read { db in
            try String.fetchAll(db, sql: """
                SELECT c.subject FROM probe_results p JOIN chain_certificates l ON l.chain_id = p.served_chain_id
                JOIN certificates c ON c.id = l.certificate_id WHERE p.id = 1 ORDER BY l.position
                """)
        }
        XCTAssertEqual(order, ["CN=cert 1", "CN=cert 2", "CN=cert 3"])
        // A different order is a different chain, made of the same certificates.
        var reordered = Fixtures.probe(11)
        reordered.servedChain.reverse()
        try await store.write(WriteBatch(probes: [reordered]))
        let after = try await store.statistics()
        XCTAssertEqual(after.certificates, 3)
        let chainsAfter = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM certificate_chains") }
        XCTAssertEqual(chainsAfter, 2)
    }

    func testBatchIsAtomic() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        var bad = Fixtures.alert(1)
        bad.kind = "pin_mismatch"
        // The same idempotency key twice is fine (ignored); a CHECK violation aborts the whole batch.
        try await store.pool.write { db in try db.execute(sql: "CREATE TRIGGER fail BEFORE INSERT ON alerts WHEN NEW.target = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END") }
        bad.target = "boom"
        do {
            try await store.write(WriteBatch(probes: [Fixtures.probe(1)], alerts: [bad]))
            XCTFail("expected the batch to fail")
        } catch {}
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 0, "probe result must not commit without its alert")
        XCTAssertEqual(stats.certificates, 0)
        // The certificate cache must not remember ids from the rolled-back transaction.
        try await store.write(WriteBatch(probes: [Fixtures.probe(2)]))
        let after = try await store.statistics()
        XCTAssertEqual(after.certificates, 3)
        // Batches run with foreign keys off (no statement journals); every other write has them on.
        let foreignKeys = try await store.writeChecked { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        XCTAssertEqual(foreignKeys, 1)
    }

    func testConsecutiveBatchesKeepTheirPreparedStatementsAndCheckedWritesEnforceForeignKeys() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        for n in 1...3 { try await store.write(WriteBatch(probes: [Fixtures.probe(n)])) }
        // Each switch of foreign keys expires every prepared statement, which SQLite then parses again.
        let insert = ProbeColumn.insertSQL(rows: 1)
        let reprepared = try await store.pool.writeWithoutTransaction { db in
            sqlite3_stmt_status(try db.cachedStatement(sql: insert).sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
        }
        XCTAssertEqual(reprepared, 0, "a batch after a batch switched foreign keys")

        do {
            try await store.writeChecked { db in
                try db.execute(sql: "INSERT INTO probe_results (time_ms, target, outcome, served_chain_id) VALUES (1, 'x', 'ok', 999999)")
            }
            XCTFail("a checked write stored a result pointing at no chain")
        } catch {
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY, "\(error)")
        }
        try await store.write(WriteBatch(probes: [Fixtures.probe(4)]))
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 4)
    }

    func testReadersAreNotBlockedByAWriter() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: [Fixtures.probe(1)]))
        let writerStarted = expectation(description: "writer holds the lock")
        let longWrite = Task {
            try await store.pool.write { db in
                try db.execute(sql: "INSERT INTO probe_results (time_ms, target, outcome) VALUES (1, 'x', 'ok')")
                writerStarted.fulfill()
                Thread.sleep(forTimeInterval: 1.5)
            }
        }
        await fulfillment(of: [writerStarted], timeout: 5)
        let start = ContinuousClock.now
        let stats = try await store.statistics()
        let elapsed = ContinuousClock.now - start
        XCTAssertEqual(stats.probeResults, 1, "reader sees the committed snapshot")
        XCTAssertLessThan(elapsed, .milliseconds(1_000), "read waited for the writer")
        try await longWrite.value
        let final = try await store.statistics()
        XCTAssertEqual(final.probeResults, 2)
    }

    func testConcurrentWritersThroughStoreWriterLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let runner = Task { try await writer.run() }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<8 {
                group.addTask {
                    for i in 0..<250 {
                        writer.submit(WriteBatch(probes: [Fixtures.probe(producer * 1_000 + i, target: "t\(producer)")]))
                    }
                }
            }
            group.addTask {
                // Readers run while writes happen.
                for _ in 0..<20 { _ = try? await store.statistics() }
            }
        }
        try await writer.write(WriteBatch(reachabilityEvents: [Fixtures.reachability(0)]))
        writer.close()
        try await runner.value
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 2_000)
        XCTAssertEqual(stats.reachabilityEvents, 1)
        XCTAssertFalse(writer.submit(WriteBatch(probes: [Fixtures.probe(1)])), "closed writer refuses new rows")
    }

    func testGracefulShutdownFlushesPendingWrites() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let group = ServiceGroup(configuration: .init(services: [writer], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        for i in 0..<5_000 { writer.submit(WriteBatch(probes: [Fixtures.probe(i)])) }
        await group.triggerGracefulShutdown()
        try await running.value
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 5_000)
    }

    func testACancelledWriterStillWritesWhatItWasGiven() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let running = Task { try await writer.run() }
        for i in 0..<5_000 { writer.submit(WriteBatch(probes: [Fixtures.probe(i)])) }
        running.cancel()  // what a service group does when a service fails or graceful shutdown runs out of time
        try await running.value
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 5_000)
        XCTAssertEqual(writer.health.abandonedRows, 0)
    }

    func testRetentionDeletesOldRowsKeepsPendingAlertsAndOrphanCertificates() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        var oldProbe = Fixtures.probe(0, at: Fixtures.base.adding(.seconds(-86_400 * 40)))
        oldProbe.servedChain = [Fixtures.certificate(99)]
        oldProbe.validatedChain = []
        let newProbe = Fixtures.probe(1)
        var oldEvent = Fixtures.reachability(0)
        oldEvent.time = Fixtures.base.adding(.seconds(-86_400 * 40))
        var oldPending = Fixtures.alert(1)
        oldPending.time = oldEvent.time
        var oldDelivered = Fixtures.alert(2, state: .delivered)
        oldDelivered.time = oldEvent.time
        let oldProbes = (0..<5_000).map { i -> ProbeRecord in
            var p = Fixtures.probe(i, at: Fixtures.base.adding(.seconds(-86_400 * 35 + Int64(i))))
            p.servedChain = []; p.validatedChain = []
            return p
        }
        try await store.write(WriteBatch(probes: [oldProbe, newProbe] + oldProbes, reachabilityEvents: [oldEvent, Fixtures.reachability(1)],
                                         alerts: [oldPending, oldDelivered]))
        let service = RetentionService(store: store, retention: .seconds(86_400 * 30), logger: Logger(label: "test"))
        let pruned = await service.pruneOnce(now: Fixtures.base.adding(.seconds(10)))
        let summary = try XCTUnwrap(pruned)
        XCTAssertEqual(summary.probeResults, 5_001)
        XCTAssertEqual(summary.reachabilityEvents, 1)
        XCTAssertEqual(summary.alerts, 1, "only the delivered alert goes; pending ones are never deleted")
        XCTAssertEqual(summary.chains, 1, "the chain of certificate 99 is no longer referenced")
        XCTAssertEqual(summary.certificates, 1, "certificate 99 is no longer referenced")
        let stats = try await store.statistics()
        XCTAssertEqual(stats.probeResults, 1)
        XCTAssertEqual(stats.certificates, 3)
        XCTAssertEqual(stats.alertsPending, 1)
        // A certificate deleted by retention and seen again is stored again (no stale cached id).
        try await store.write(WriteBatch(probes: [oldProbe]))
        let again = try await store.statistics()
        XCTAssertEqual(again.certificates, 4)
        let dangling = try store.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM chain_certificates l LEFT JOIN certificates c ON c.id = l.certificate_id WHERE c.id IS NULL)
                     + (SELECT COUNT(*) FROM probe_results p LEFT JOIN certificate_chains h ON h.id = p.served_chain_id
                        WHERE p.served_chain_id IS NOT NULL AND h.id IS NULL)
                """)
        }
        XCTAssertEqual(dangling, 0)
    }

    func testMultiRowInsertsKeepOrderValuesAndChainUse() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        // Not a multiple of the rows per statement: full multi-row statements, then single rows.
        let count = Store.probesPerStatement * 2 + 5
        var probes = (0..<count).map { Fixtures.probe($0, target: "t\($0 % 7)", ok: $0 % 4 != 0) }
        probes[3].validatedChain = [Fixtures.certificate(7), Fixtures.certificate(8)]
        try await store.write(WriteBatch(probes: probes))
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, time_ms, target, outcome, details, validated_chain_id FROM probe_results ORDER BY id")
        }
        XCTAssertEqual(rows.count, count)
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(row["id"] as Int64, Int64(index + 1))
            XCTAssertEqual(row["time_ms"] as Int64, probes[index].time.milliseconds)
            XCTAssertEqual(row["target"] as String, probes[index].target)
            XCTAssertEqual(row["outcome"] as String, probes[index].outcome.rawValue)
            XCTAssertEqual(row["details"] as String?, probes[index].detailsJSON)
        }
        let chains = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, last_used_ms FROM certificate_chains ORDER BY id")
        }
        XCTAssertEqual(chains.count, 2)
        XCTAssertEqual(chains[0]["last_used_ms"] as Int64, probes[count - 1].time.milliseconds, "newest result using it")
        XCTAssertEqual(chains[1]["last_used_ms"] as Int64, probes[3].time.milliseconds)
        XCTAssertEqual(rows[3]["validated_chain_id"] as Int64?, chains[1]["id"] as Int64?)
    }

    func testReadOnlyOpenRejectsMissingForeignAndCorruptFiles() throws {
        let directory = try TemporaryDirectory()
        XCTAssertEqual(kind { try Store.openReadOnly(path: directory.path("missing.sqlite")) }, .missing)

        let text = directory.path("text.sqlite")
        try String(repeating: "not a database\n", count: 200).write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertEqual(kind { try Store.openReadOnly(path: text) }, .notADatabase)

        let foreign = directory.path("foreign.sqlite")
        let queue = try DatabaseQueue(path: foreign)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        XCTAssertEqual(kind { try Store.openReadOnly(path: foreign) }, .notNetvigil)

        let corrupt = directory.path("corrupt.sqlite")
        try makeCorruptDatabase(at: corrupt)
        XCTAssertEqual(kind { try Store.openReadOnly(path: corrupt) }, .corrupt)
    }

    private func kind(_ body: () throws -> Store) -> StoreError.Kind? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? StoreError)?.kind
        }
    }
}

/// Writes a netvigil database and overwrites pages in the middle with garbage.
func makeCorruptDatabase(at path: String) throws {
    do {
        let store = try Store.open(path: path)
        let batch = WriteBatch(probes: (0..<2_000).map { Fixtures.probe($0) })
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            try? await store.write(batch)
            semaphore.signal()
        }
        semaphore.wait()
        _ = try store.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: size / 2)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 16_384))
    try handle.close()
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
