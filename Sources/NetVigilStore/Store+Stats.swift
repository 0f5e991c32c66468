import Foundation
import GRDB

/// Row counts and time span of the store, for `/v1/status`.
public struct StoreStatistics: Sendable, Equatable, Codable {
    public var path: String
    public var sizeBytes: Int64
    public var probeResults: Int
    public var certificates: Int
    public var reachabilityEvents: Int
    public var alerts: Int
    public var alertsPending: Int
    public var oldest: Timestamp?
    public var newest: Timestamp?

    enum CodingKeys: String, CodingKey {
        case path
        case sizeBytes = "size_bytes"
        case probeResults = "probe_results"
        case certificates
        case reachabilityEvents = "reachability_events"
        case alerts
        case alertsPending = "alerts_pending"
        case oldest
        case newest
    }
}

extension Store {
    /// Current counts, for a status request (reads a snapshot, never waits for the writer). The results and
    /// reachability rows come from ``RowTally`` once ``startRowTally()`` has run; the small tables are counted each time.
    public func statistics() async throws -> StoreStatistics {
        do {
            let tallied = rowTally.current
            return try await pool.read { db in
                let count = { (table: String) in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
                let oldest = try Int64.fetchOne(db, sql: """
                    SELECT MIN(t) FROM (SELECT MIN(time_ms) AS t FROM probe_results UNION ALL SELECT MIN(time_ms) FROM reachability_events)
                    """)
                let newest = try Int64.fetchOne(db, sql: """
                    SELECT MAX(t) FROM (SELECT MAX(time_ms) AS t FROM probe_results UNION ALL SELECT MAX(time_ms) FROM reachability_events)
                    """)
                var size: Int64 = 0
                for suffix in ["", "-wal"] {
                    let attributes = try? FileManager.default.attributesOfItem(atPath: self.path + suffix)
                    size += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
                }
                return StoreStatistics(
                    path: self.path, sizeBytes: size,
                    probeResults: try tallied?.probeResults ?? count("probe_results"), certificates: try count("certificates"),
                    reachabilityEvents: try tallied?.reachabilityEvents ?? count("reachability_events"), alerts: try count("alerts"),
                    alertsPending: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alerts WHERE state = 'pending'") ?? 0,
                    oldest: oldest.map(Timestamp.init(milliseconds:)), newest: newest.map(Timestamp.init(milliseconds:)))
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Takes the results and reachability row counts that `statistics()` then keeps from this process's writes
    /// (``RowTally``). The daemon's writer calls it as it starts: one scan, inside a write transaction (slow on a large
    /// store), instead of one per status request.
    public func startRowTally() async throws {
        guard !isReadOnly else { return }
        do {
            try await writeChecked { db in
                self.rowTally.start(RowTally.Counts(
                    probeResults: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe_results") ?? 0,
                    reachabilityEvents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reachability_events") ?? 0))
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Distinct target names that appear anywhere in the history.
    public func knownTargets() throws -> Set<String> {
        try read { db in
            try String.fetchSet(db, sql: """
                SELECT DISTINCT target FROM probe_results UNION SELECT DISTINCT target FROM reachability_events
                UNION SELECT DISTINCT target FROM alerts
                """)
        }
    }
}
