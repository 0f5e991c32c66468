import Foundation
import GRDB

/// One export run: document framing plus the per-kind row writers.
struct ExportSession {
    var writer: JSONStreamWriter
    let format: ExportFormat
    let progress: ((Int) -> Void)?
    var rows = 0
    var rowsInPage = 0
    var firstInArray = true
    /// Rows per page: one short read transaction each.
    static let pageRows = 1_000
    /// A page also ends once this much JSON is buffered (it is written to the output after the transaction).
    static let pageBytes = 256 * 1024

    /// `{"name":"value",…}` (sorted keys) by target name: the `labels` of its probe rows.
    let labelsJSON: [String: [UInt8]]

    init(writer: JSONStreamWriter, format: ExportFormat, progress: ((Int) -> Void)?,
         targetLabels: [String: [String: String]] = [:]) {
        self.writer = writer
        self.format = format
        self.progress = progress
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        labelsJSON = targetLabels.compactMapValues { labels in (try? encoder.encode(labels)).map { Array($0) } }
    }

    mutating func header(query: ExportQuery, version: String, now: Timestamp) {
        writer.raw("{")
        if format == .ndjson { writer.raw("\"type\":\"header\",") }
        writer.key("netvigil"); writer.string(version)
        writer.raw(","); writer.key("exported_at"); writer.timestamp(now)
        writer.raw(","); writer.key("range"); writer.raw("{")
        writer.key("since"); writer.timestamp(query.since)
        writer.raw(","); writer.key("until"); writer.timestamp(query.until)
        writer.raw(","); writer.key("targets"); writer.stringArray(query.targets)
        writer.raw(","); writer.key("kinds"); writer.stringArray(query.kinds.map(\.rawValue))
        writer.raw("}")
        if format == .ndjson { writer.raw("}\n") }
    }

    mutating func beginArray(_ kind: ExportQuery.Kind) {
        firstInArray = true
        guard format == .json else { return }
        switch kind {
        case .probes: writer.raw(",\"probes\":[")
        case .reachability: writer.raw(",\"reachability\":[")
        case .alerts: writer.raw(",\"alerts\":[")
        }
    }

    mutating func endArray() {
        if format == .json { writer.raw("]") }
    }

    mutating func finish() {
        if format == .json { writer.raw("}\n") }
    }

    /// Opens one row object (`{` with separator or `type`).
    mutating func beginRow(type: StaticString) {
        if format == .json {
            if !firstInArray { writer.raw(",") }
            writer.raw("{")
        } else {
            writer.raw("{\"type\":\"")
            writer.raw(type)
            writer.raw("\",")
        }
        firstInArray = false
    }

    /// Closes a row; the page ends (and is handed to the output outside the transaction) once it is full.
    mutating func endRow() {
        writer.raw(format == .json ? "}" : "}\n")
        rows += 1
        if rows % 10_000 == 0 { progress?(rows) }
    }

    /// Whether the page being read is full (rows or buffered bytes).
    var pageIsFull: Bool { rowsInPage >= ExportSession.pageRows || writer.bufferedCount >= ExportSession.pageBytes }

    static func arguments(_ values: [Int64OrString]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .int(let number): return number
            case .string(let text): return text
            }
        })
    }

    // MARK: probes

    /// Chains already written by this export.
    let chains = ChainJSONCache()

    /// Writes one page of probe rows.
    mutating func probes(_ db: Database, query: ExportQuery, page: ExportPageBounds) throws -> ExportPageEnd {
        let (condition, values) = query.condition(alias: "p")
        let (keyset, keysetValues) = page.keyset(alias: "p")
        let statement = try db.makeStatement(sql: """
            SELECT \(Self.probeSelectList) FROM probe_results p WHERE \(condition)\(keyset)
            """)
        try statement.setArguments(Self.arguments(values + keysetValues))
        let row = RawStatement(statement)
        let source = StoredProbeRow(row: row, chains: chains, chainStatement: try db.makeStatement(sql: ChainJSONCache.sql))
        rowsInPage = 0
        var last: (time: Int64, id: Int64)?
        while !pageIsFull, try row.step(db) {
            beginRow(type: "probe")
            writer.key("id"); writer.int(row.int64(0))
            try writer.probeFields(source, leadingComma: true)
            if !labelsJSON.isEmpty, let target = row.string(ProbeColumn.target.selectIndex), let labels = labelsJSON[target] {
                writer.raw(","); writer.key("labels"); writer.rawBytes(labels)
            }
            last = (row.int64(ProbeColumn.time.selectIndex), row.int64(0))
            endRow()
            rowsInPage += 1
        }
        return ExportPageEnd(rows: rowsInPage, last: last, more: pageIsFull)
    }

    /// `p.id` and every `ProbeColumn`.
    private static let probeSelectList = ProbeColumn.selectList(alias: "p")

    // MARK: reachability

    /// Writes one page of reachability rows.
    mutating func reachability(_ db: Database, query: ExportQuery, page: ExportPageBounds) throws -> ExportPageEnd {
        let (condition, values) = query.condition(alias: "r")
        let (keyset, keysetValues) = page.keyset(alias: "r")
        let cursor = try Row.fetchCursor(db, sql: """
            SELECT r.id, r.time_ms, r.target, r.status, r.status_code, r.flags, r.flag_names, r.interface,
                   r.interface_kind, r.gateway, r.source, r.family
            FROM reachability_events r WHERE \(condition)\(keyset)
            """, arguments: Self.arguments(values + keysetValues))
        rowsInPage = 0
        var last: (time: Int64, id: Int64)?
        while !pageIsFull, let row = try cursor.next() {
            beginRow(type: "reachability")
            writer.key("id"); writer.int(row[0] as Int64)
            writer.raw(","); writer.key("time"); writer.timestamp(Timestamp(milliseconds: row[1]))
            writer.raw(","); writer.key("target"); writer.string(row[2] as String)
            writer.raw(","); writer.key("status"); writer.string(row[3] as String)
            writer.raw(","); writer.key("status_code"); writer.int(row[4] as Int64)
            let names: String = row[6]
            writer.raw(","); writer.key("flags"); writer.stringArray(names.isEmpty ? [] : names.split(separator: ",").map(String.init))
            writer.raw(","); writer.key("flags_raw"); writer.int(row[5] as Int64)
            writer.raw(","); writer.key("interface"); writer.string(row[7] as String?)
            writer.raw(","); writer.key("interface_kind"); writer.string(row[8] as String?)
            writer.raw(","); writer.key("gateway"); writer.string(row[9] as String?)
            writer.raw(","); writer.key("source"); writer.string(row[10] as String?)
            writer.raw(","); writer.key("family"); writer.string(row[11] as String?)
            last = (row[1] as Int64, row[0] as Int64)
            endRow()
            rowsInPage += 1
        }
        return ExportPageEnd(rows: rowsInPage, last: last, more: pageIsFull)
    }

    // MARK: alerts

    /// Writes one page of alerts rows.
    mutating func alerts(_ db: Database, query: ExportQuery, page: ExportPageBounds) throws -> ExportPageEnd {
        let (condition, values) = query.condition(alias: "a")
        let (keyset, keysetValues) = page.keyset(alias: "a")
        let cursor = try Row.fetchCursor(db, sql: """
            SELECT a.id, a.time_ms, a.kind, a.target, a.sink, a.state, a.attempts, a.next_attempt_ms,
                   a.idempotency_key, a.last_error, a.delivered_ms, a.payload
            FROM alerts a WHERE \(condition)\(keyset)
            """, arguments: Self.arguments(values + keysetValues))
        rowsInPage = 0
        var last: (time: Int64, id: Int64)?
        while !pageIsFull, let row = try cursor.next() {
            beginRow(type: "alert")
            writer.key("id"); writer.int(row[0] as Int64)
            writer.raw(","); writer.key("time"); writer.timestamp(Timestamp(milliseconds: row[1]))
            writer.raw(","); writer.key("kind"); writer.string(row[2] as String)
            writer.raw(","); writer.key("target"); writer.string(row[3] as String)
            writer.raw(","); writer.key("sink"); writer.string(row[4] as String)
            writer.raw(","); writer.key("state"); writer.string(row[5] as String)
            writer.raw(","); writer.key("attempts"); writer.int(row[6] as Int64)
            writer.raw(","); writer.key("next_attempt_at"); writer.timestamp(Timestamp(milliseconds: row[7]))
            writer.raw(","); writer.key("idempotency_key"); writer.string(row[8] as String)
            writer.raw(","); writer.key("last_error"); writer.string(row[9] as String?)
            writer.raw(","); writer.key("delivered_at"); writer.timestamp((row[10] as Int64?).map(Timestamp.init(milliseconds:)))
            writer.raw(","); writer.key("payload"); writer.object(text: row[11] as String?)
            last = (row[1] as Int64, row[0] as Int64)
            endRow()
            rowsInPage += 1
        }
        return ExportPageEnd(rows: rowsInPage, last: last, more: pageIsFull)
    }
}
