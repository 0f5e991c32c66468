import Foundation
import GRDB
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// Databases written by earlier schema versions open, migrate and keep working.
final class StoreMigrationTests: XCTestCase {
    /// Writes a schema-v1 database the way netvigil 0.1 did: results pointing at chains through indexed columns.
    private func makeVersion1Database(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO certificates (id, sha256, pem, subject, issuer, serial, not_before_ms, not_after_ms, spki_pin)
                VALUES (1, 'aa', 'PEM', 'CN=a', 'CN=ca', '1', 0, 1, 'sha256/a'), (2, 'bb', 'PEM', 'CN=b', 'CN=ca', '2', 0, 1, 'sha256/b');
                INSERT INTO certificate_chains (id, fingerprint) VALUES (1, 'aa'), (2, 'bb'), (3, 'aa:bb');
                INSERT INTO chain_certificates (chain_id, position, certificate_id) VALUES (1, 0, 1), (2, 0, 2), (3, 0, 1), (3, 1, 2);
                INSERT INTO probe_results (time_ms, target, outcome, served_chain_id, validated_chain_id) VALUES
                    (1000, 'old', 'ok', 1, 1), (5000, 'new', 'ok', 2, 3), (3000, 'new', 'ok', 2, NULL);
                """)
        }
    }

    func testVersion1DatabaseMigratesAndRetentionStillFindsUnusedChains() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        try makeVersion1Database(at: path)

        let store = try Store.open(path: path)
        let migrations = try store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(migrations, ["v1", "v2", "v3", "v4", "v5"])
        // v3: every result gains the path columns, NULL for the rows written before.
        let paths = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT interface, interface_kind FROM probe_results").map { [$0[0] as String?, $0[1] as String?] }
        }
        XCTAssertFalse(paths.isEmpty)
        XCTAssertTrue(paths.allSatisfy { $0 == [nil, nil] }, "\(paths)")
        let lastUsed = try store.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, last_used_ms FROM certificate_chains").map {
                ($0["id"] as Int64, $0["last_used_ms"] as Int64)
            })
        }
        XCTAssertEqual(lastUsed, [1: 1000, 2: 5000, 3: 5000], "the newest served or validated result per chain")
        let indexes = try store.read { db in
            try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'probe_results'")
        }
        XCTAssertEqual(indexes, ["probe_results_time", "probe_results_target_time"])

        // Rows written after the migration find the stored chain by fingerprint and move its last use forward.
        try await store.write(WriteBatch(probes: [ProbeRecord(
            time: Timestamp(milliseconds: 9000), target: "new", outcome: .ok,
            servedChain: [CertificateRecord(sha256: "bb", pem: "PEM", subject: "CN=b", issuer: "CN=ca", serial: "2",
                                            notBefore: Timestamp(milliseconds: 0), notAfter: Timestamp(milliseconds: 1),
                                            spkiPin: "sha256/b")])]))
        let chain2 = try store.read { db in try Int64.fetchOne(db, sql: "SELECT last_used_ms FROM certificate_chains WHERE id = 2") }
        XCTAssertEqual(chain2, 9000)
        XCTAssertEqual(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM certificate_chains") }, 3)

        let summary = try await store.prune(olderThan: Timestamp(milliseconds: 2000))
        XCTAssertEqual(summary.probeResults, 1)
        XCTAssertEqual(summary.chains, 1, "chain 1 was used only by the pruned result")
        XCTAssertEqual(summary.certificates, 0, "certificate aa is still in chain 3")
        let links = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM chain_certificates WHERE chain_id = 1") }
        XCTAssertEqual(links, 0, "a deleted chain's links go with it")
        let foreignKeys = try await store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        XCTAssertEqual(foreignKeys, 1, "foreign keys are enforced again after retention")
        let violations = try store.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        XCTAssertEqual(violations.count, 0)
    }

    func testPageSizeOfExistingDatabaseIsKept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        try makeVersion1Database(at: path)
        let store = try Store.open(path: path)
        XCTAssertEqual(try store.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }, 4_096)
    }
}
