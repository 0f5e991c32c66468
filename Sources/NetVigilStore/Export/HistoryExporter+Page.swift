import Foundation
import GRDB

extension HistoryExporter {
    /// Largest page `page(_:after:limit:)` returns.
    public static let maximumPageSize = 1_000

    /// One page of history matching `query`, in (time, kind, id) order, starting after `cursor`.
    ///
    /// The page's keys come from an index-ordered keyset query per kind; the row objects themselves are written by
    /// `export(_:format:to:)` (NDJSON) over the page's time span, so a page item is exactly an export row.
    public func page(_ query: ExportQuery, after cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        guard (1...Self.maximumPageSize).contains(limit) else {
            throw ExportError.invalidQuery("limit must be from 1 to \(Self.maximumPageSize), got \(limit)")
        }
        let keys = try store.read { db in try Self.pageKeys(db, query: query, after: cursor, limit: limit + 1) }
        guard let first = keys.first else { return HistoryPage(items: [], nextCursor: nil) }
        let pageKeys = Array(keys.prefix(limit))
        let last = pageKeys[pageKeys.count - 1]

        let wanted = Set(pageKeys)
        let collector = PageRowCollector(wanted: wanted)
        let span = ExportQuery(since: Timestamp(milliseconds: first.time), until: Timestamp(milliseconds: last.time + 1),
                               targets: query.targets, kinds: Array(Set(pageKeys.map(\.kind))))
        _ = try export(span, format: .ndjson, to: collector)
        try collector.finish()
        // A row removed by retention between the two reads is simply absent from the page.
        let items = pageKeys.compactMap { collector.rows[$0] }
        return HistoryPage(items: items, nextCursor: keys.count > limit ? last : nil)
    }

    /// The first `limit` row keys after `cursor`, merged over the query's kinds.
    private static func pageKeys(_ db: Database, query: ExportQuery, after cursor: HistoryCursor?, limit: Int) throws -> [HistoryCursor] {
        var keys: [HistoryCursor] = []
        for kind in query.kinds {
            let (condition, values) = query.condition(alias: "t")
            var arguments = values.map { value -> (any DatabaseValueConvertible)? in
                switch value {
                case .int(let number): return number
                case .string(let text): return text
                }
            }
            var keyset = ""
            if let cursor {
                let order = HistoryCursor(time: 0, kind: kind, id: 0).kindOrder
                if order > cursor.kindOrder {
                    keyset = " AND t.time_ms >= ?"
                    arguments.append(cursor.time)
                } else if order < cursor.kindOrder {
                    keyset = " AND t.time_ms > ?"
                    arguments.append(cursor.time)
                } else {
                    keyset = " AND t.time_ms >= ? AND (t.time_ms > ? OR t.id > ?)"
                    arguments += [cursor.time, cursor.time, cursor.id]
                }
            }
            arguments.append(limit)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.time_ms, t.id FROM \(kind.table) t WHERE \(condition)\(keyset) ORDER BY t.time_ms, t.id LIMIT ?
                """, arguments: StatementArguments(arguments))
            while let row = try rows.next() {
                keys.append(HistoryCursor(time: row[0], kind: kind, id: row[1]))
            }
        }
        keys.sort()
        return Array(keys.prefix(limit))
    }
}

extension ExportQuery.Kind {
    /// The table holding this kind of history.
    var table: String {
        switch self {
        case .probes: "probe_results"
        case .reachability: "reachability_events"
        case .alerts: "alerts"
        }
    }

    /// The kind named by an NDJSON line's `type`.
    init?(lineType: String) {
        switch lineType {
        case "probe": self = .probes
        case "reachability": self = .reachability
        case "alert": self = .alerts
        default: return nil
        }
    }
}

/// Receives an NDJSON export and keeps the lines whose (type, id) a page wants.
private final class PageRowCollector: ExportOutput {
    let wanted: Set<HistoryCursor>
    private(set) var rows: [HistoryCursor: [UInt8]] = [:]
    private var partial: [UInt8] = []

    init(wanted: Set<HistoryCursor>) {
        self.wanted = wanted
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            partial.append(contentsOf: bytes[start..<index])
            try take(partial)
            partial.removeAll(keepingCapacity: true)
            start = index + 1
        }
        partial.append(contentsOf: bytes[start...])
    }

    /// Every export line ends with a newline; anything left over means the export was cut short.
    func finish() throws {
        guard partial.isEmpty else { throw ExportError.output("history page: export ended inside a row") }
    }

    private func take(_ line: [UInt8]) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
              let type = object["type"] as? String else {
            throw ExportError.output("history page: export wrote a line that is not a JSON object")
        }
        guard let kind = ExportQuery.Kind(lineType: type) else { return }  // the header
        guard let id = (object["id"] as? NSNumber)?.int64Value,
              let time = (object["time"] as? String).flatMap({ Timestamp.parse($0) }) else {
            throw ExportError.output("history page: export row without id or time")
        }
        let key = HistoryCursor(time: time.milliseconds, kind: kind, id: id)
        if wanted.contains(key) { rows[key] = line }
    }
}
