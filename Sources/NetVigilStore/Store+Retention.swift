import GRDB
import Synchronization

/// Rows removed by one retention pass.
public struct PruneSummary: Sendable, Equatable {
    public var probeResults = 0
    public var reachabilityEvents = 0
    public var alerts = 0
    /// Certificate chains no result refers to any more.
    public var chains = 0
    public var certificates = 0

    public init() {}

    public var total: Int { probeResults + reachabilityEvents + alerts + chains + certificates }
}

extension Store {
    /// Deletes history older than `cutoff` in small transactions so the write lock is never held for long.
    ///
    /// Pending alerts are never deleted (they have not been delivered yet). Certificates no longer
    /// referenced by any result (through their chains) are removed afterwards.
    public func prune(olderThan cutoff: Timestamp, batchSize: Int = 2_000) async throws -> PruneSummary {
        var summary = PruneSummary()
        let cut = cutoff.milliseconds
        summary.probeResults = try await deleteInBatches(batchSize, tallied: .probeResults, sql: """
            DELETE FROM probe_results WHERE id IN (SELECT id FROM probe_results WHERE time_ms < \(cut) ORDER BY time_ms LIMIT ?)
            """)
        summary.reachabilityEvents = try await deleteInBatches(batchSize, tallied: .reachabilityEvents, sql: """
            DELETE FROM reachability_events WHERE id IN (SELECT id FROM reachability_events WHERE time_ms < \(cut) ORDER BY time_ms LIMIT ?)
            """)
        summary.alerts = try await deleteInBatches(batchSize, sql: """
            DELETE FROM alerts WHERE id IN (SELECT id FROM alerts WHERE time_ms < \(cut) AND state != 'pending' ORDER BY time_ms LIMIT ?)
            """)
        summary.chains = try await deleteUnusedChains(before: cut, batchSize: batchSize)
        summary.certificates = try await deleteInBatches(batchSize, clearsIDCache: true, sql: """
            DELETE FROM certificates WHERE id IN (SELECT c.id FROM certificates c
                WHERE NOT EXISTS (SELECT 1 FROM chain_certificates l WHERE l.certificate_id = c.id) LIMIT ?)
            """)
        return summary
    }

    /// Deletes certificate chains no result points at any more (with their certificate links), in batches.
    ///
    /// Every result pointing at a chain is at or before the chain's `last_used_ms` (the writer keeps it so), so only
    /// chains last used before the cutoff can be unreferenced, and proving it is a range scan of the time index.
    /// SQLite's own foreign-key check of a chain delete would scan all results (their chain columns have no index
    /// since schema v2), so it is switched off for these transactions only, after the query has done the check.
    private func deleteUnusedChains(before cut: Int64, batchSize: Int) async throws -> Int {
        try await inBatches(batchSize) {
            try await writeWithoutForeignKeys { db in
                let ids = try Int64.fetchAll(db, sql: """
                    SELECT c.id FROM certificate_chains c
                    WHERE c.last_used_ms < ?
                      AND NOT EXISTS (SELECT 1 FROM probe_results p WHERE p.time_ms <= c.last_used_ms AND p.served_chain_id = c.id)
                      AND NOT EXISTS (SELECT 1 FROM probe_results p WHERE p.time_ms <= c.last_used_ms AND p.validated_chain_id = c.id)
                    LIMIT ?
                    """, arguments: [cut, batchSize])
                if !ids.isEmpty {
                    let list = ids.map(String.init).joined(separator: ",")
                    try db.execute(sql: "DELETE FROM chain_certificates WHERE chain_id IN (\(list))")
                    try db.execute(sql: "DELETE FROM certificate_chains WHERE id IN (\(list))")
                    // Inside the transaction: the next writer cannot see a stale id.
                    self.knownIDs.withLock { $0 = Store.KnownIDs() }
                }
                return ids.count
            }
        }
    }

    private func deleteInBatches(_ batchSize: Int, clearsIDCache: Bool = false, tallied: RowTally.Table? = nil,
                                 sql: String) async throws -> Int {
        try await inBatches(batchSize) {
            do {
                return try await writeChecked { db in
                    try db.execute(sql: sql, arguments: [batchSize])
                    if clearsIDCache, db.changesCount > 0 {
                        // Inside the transaction: the next writer cannot see a stale id.
                        self.knownIDs.withLock { $0 = Store.KnownIDs() }
                    }
                    if let tallied { self.rowTally.adjust(tallied, by: -db.changesCount) }
                    return db.changesCount
                }
            } catch {
                rowTally.forget()
                throw error
            }
        }
    }

    /// Runs `transaction` (one batch, returning the rows it deleted) until a batch deletes fewer than `batchSize`,
    /// yielding between batches; returns the rows deleted in all. Errors name the database file.
    private func inBatches(_ batchSize: Int, _ transaction: () async throws -> Int) async throws -> Int {
        var total = 0
        while true {
            let deleted: Int
            do {
                deleted = try await transaction()
            } catch {
                throw Store.classify(error, path: path)
            }
            total += deleted
            if deleted < batchSize { return total }
            await Task.yield()
        }
    }
}
