import Foundation
import GRDB

/// Streams history as JSON or NDJSON with constant memory, in pages of short read transactions.
///
/// Each page (up to `ExportSession.pageRows` rows or 256 KiB) is read in its own transaction and written to the
/// output after it ends, so a slow consumer never pins a snapshot and the WAL can be checkpointed meanwhile. Rows
/// come in (time, id) order per kind; rows written after the export began are not included, rows removed by
/// retention meanwhile may be missing, and no row appears twice. The same code serves `netvigil export` and the
/// feed's `/v1/export`.
public struct HistoryExporter: Sendable {
    public let store: Store
    /// The netvigil version written into the document.
    public let version: String
    /// Configured labels by target name, added to that target's probe rows as `labels` (taken from the configuration
    /// at export time, not stored per row: rows of a target that had other labels then get today's).
    public var targetLabels: [String: [String: String]]

    public init(store: Store, version: String, targetLabels: [String: [String: String]] = [:]) {
        self.store = store
        self.version = version
        self.targetLabels = targetLabels.filter { !$0.value.isEmpty }
    }

    /// Writes the export; `progress` is called with the running row count every 10,000 rows. Past `deadline`
    /// the export stops before its next page with `ExportError.timeLimit`, leaving the document incomplete.
    public func export(_ query: ExportQuery, format: ExportFormat, to output: ExportOutput,
                       now: Timestamp = .now(), deadline: ContinuousClock.Instant? = nil,
                       progress: ((Int) -> Void)? = nil) throws -> ExportSummary {
        store.exportBegan()
        defer { store.exportEnded() }
        let lastIDs = try store.read { db in
            try query.kinds.map { kind in
                try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM \(kind.table)") ?? 0
            }
        }
        var session = ExportSession(writer: JSONStreamWriter(output: output), format: format, progress: progress,
                                    targetLabels: targetLabels)
        var summary = ExportSummary()
        session.header(query: query, version: version, now: now)
        for (kind, lastID) in zip(query.kinds, lastIDs) {
            session.beginArray(kind)
            var bounds = ExportPageBounds(after: nil, lastID: lastID)
            var count = 0
            while true {
                if let deadline, ContinuousClock.now >= deadline {
                    throw ExportError.timeLimit("export stopped at its time limit after \(session.rows) rows")
                }
                let end = try store.read { db in
                    switch kind {
                    case .probes: try session.probes(db, query: query, page: bounds)
                    case .reachability: try session.reachability(db, query: query, page: bounds)
                    case .alerts: try session.alerts(db, query: query, page: bounds)
                    }
                }
                count += end.rows
                // Outside the transaction: a slow consumer holds no snapshot.
                try session.writer.flush()
                guard end.more, let last = end.last else { break }
                bounds.after = last
            }
            switch kind {
            case .probes: summary.probes = count
            case .reachability: summary.reachability = count
            case .alerts: summary.alerts = count
            }
            session.endArray()
        }
        session.finish()
        try session.writer.flush()
        return summary
    }
}
