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

    init(writer: JSONStreamWriter, format: ExportFormat, progress: ((Int) -> Void)?) {
        self.writer = writer
        self.format = format
        self.progress = progress
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

    /// Writes a stored JSON object text, or null when it is absent or not valid JSON.
    mutating func embeddedJSON(_ text: String?) {
        guard let text, let data = text.data(using: .utf8),
              (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else { return writer.null() }
        writer.rawBytes(text.utf8)
    }

    static func arguments(_ values: [Int64OrString]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .int(let number): return number
            case .string(let text): return text
            }
        })
    }

    // MARK: probes

    /// Serialized chain arrays by chain id; chains repeat across results, so most rows hit this cache.
    var chainJSON: [Int64: [UInt8]] = [:]

    /// Writes one page of probe rows.
    mutating func probes(_ db: Database, query: ExportQuery, page: ExportPageBounds) throws -> ExportPageEnd {
        let (condition, values) = query.condition(alias: "p")
        let (keyset, keysetValues) = page.keyset(alias: "p")
        let statement = try db.makeStatement(sql: """
            SELECT p.id, p.time_ms, p.target, p.url, p.outcome, p.error_kind, p.error_message, p.http_status,
                   p.http_version, p.content_type, p.content_length, p.resolve_ms, p.connect_ms, p.tls_ms,
                   p.processing_ms, p.transfer_ms, p.total_ms, p.tls_version, p.tls_cipher, p.alpn, p.trust_verdict,
                   p.pin_verdict, p.reachability_status, p.resolved_address, p.redirect_count, p.details,
                   p.served_chain_id, p.validated_chain_id
            FROM probe_results p
            WHERE \(condition)\(keyset)
            """)
        try statement.setArguments(Self.arguments(values + keysetValues))
        // Columns are read straight from SQLite into the output buffer: no `Row`, no `String` per value.
        let row = RawStatement(statement)
        let chainStatement = try db.makeStatement(sql: """
            SELECT c.subject, c.issuer, c.not_after_ms, c.sha256, c.spki_pin
            FROM chain_certificates l JOIN certificates c ON c.id = l.certificate_id
            WHERE l.chain_id = ? ORDER BY l.position
            """)
        rowsInPage = 0
        var last: (time: Int64, id: Int64)?
        while !pageIsFull, try row.step(db) {
            writeProbeFields(row)
            writer.raw(","); writer.key("served_chain"); try chain(row.int64OrNil(26), statement: chainStatement)
            writer.raw(","); writer.key("validated_chain"); try chain(row.int64OrNil(27), statement: chainStatement)
            writer.raw(","); writer.key("details"); embeddedJSON(row.string(25))
            last = (row.int64(1), row.int64(0))
            endRow()
            rowsInPage += 1
        }
        return ExportPageEnd(rows: rowsInPage, last: last, more: pageIsFull)
    }

    private mutating func writeProbeFields(_ row: RawStatement) {
        beginRow(type: "probe")
        writer.key("id"); writer.int(row.int64(0))
        writer.raw(","); writer.key("time"); writer.timestamp(Timestamp(milliseconds: row.int64(1)))
        writer.raw(","); writer.key("target"); writer.string(utf8: row.text(2))
        writer.raw(","); writer.key("url"); writer.string(utf8: row.text(3))
        writer.raw(","); writer.key("outcome"); writer.string(utf8: row.text(4))
        writer.raw(","); writer.key("error")
        if let kind = row.text(5) {
            writer.raw("{"); writer.key("kind"); writer.string(utf8: kind)
            writer.raw(","); writer.key("message"); writer.string(utf8: row.text(6)); writer.raw("}")
        } else {
            writer.null()
        }
        writer.raw(","); writer.key("http")
        if let status = row.int64OrNil(7) {
            writer.raw("{"); writer.key("status"); writer.int(status)
            writer.raw(","); writer.key("version"); writer.string(utf8: row.text(8))
            writer.raw(","); writer.key("content_type"); writer.string(utf8: row.text(9))
            writer.raw(","); writer.key("content_length"); writer.int(row.int64OrNil(10))
            writer.raw("}")
        } else {
            writer.null()
        }
        writer.raw(","); writer.key("timings_ms"); writer.raw("{")
        writer.key("resolve"); writer.milliseconds(row.doubleOrNil(11))
        writer.raw(","); writer.key("connect"); writer.milliseconds(row.doubleOrNil(12))
        writer.raw(","); writer.key("tls"); writer.milliseconds(row.doubleOrNil(13))
        writer.raw(","); writer.key("processing"); writer.milliseconds(row.doubleOrNil(14))
        writer.raw(","); writer.key("transfer"); writer.milliseconds(row.doubleOrNil(15))
        writer.raw(","); writer.key("total"); writer.milliseconds(row.doubleOrNil(16))
        writer.raw("},"); writer.key("tls")
        if let tlsVersion = row.text(17) {
            writer.raw("{"); writer.key("version"); writer.string(utf8: tlsVersion)
            writer.raw(","); writer.key("cipher"); writer.string(utf8: row.text(18))
            writer.raw(","); writer.key("alpn"); writer.string(utf8: row.text(19))
            writer.raw("}")
        } else {
            writer.null()
        }
        writer.raw(","); writer.key("trust_verdict"); writer.string(utf8: row.text(20))
        writer.raw(","); writer.key("pin_verdict"); writer.string(utf8: row.text(21))
        writer.raw(","); writer.key("reachability_status"); writer.string(utf8: row.text(22))
        writer.raw(","); writer.key("resolved_address"); writer.string(utf8: row.text(23))
        writer.raw(","); writer.key("redirect_count"); writer.int(row.int64(24))
    }

    /// Writes a chain's certificates (subject, issuer, not_after, sha256, spki_pin) as a JSON array.
    private mutating func chain(_ id: Int64?, statement: Statement) throws {
        guard let id else { return writer.raw("[]") }
        if let cached = chainJSON[id] { return writer.rawBytes(cached) }
        var local = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 4_096)
        local.raw("[")
        let rows = try Row.fetchCursor(statement, arguments: [id])
        var first = true
        while let row = try rows.next() {
            if !first { local.raw(",") }
            first = false
            local.raw("{"); local.key("subject"); local.string(row[0] as String)
            local.raw(","); local.key("issuer"); local.string(row[1] as String)
            local.raw(","); local.key("not_after"); local.timestamp(Timestamp(milliseconds: row[2]))
            local.raw(","); local.key("sha256"); local.string(row[3] as String)
            local.raw(","); local.key("spki_pin"); local.string(row[4] as String)
            local.raw("}")
        }
        local.raw("]")
        let bytes = local.bytes
        if chainJSON.count >= 10_000 { chainJSON.removeAll(keepingCapacity: true) }
        chainJSON[id] = bytes
        writer.rawBytes(bytes)
    }

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
            writer.raw(","); writer.key("payload"); embeddedJSON(row[11] as String?)
            last = (row[1] as Int64, row[0] as Int64)
            endRow()
            rowsInPage += 1
        }
        return ExportPageEnd(rows: rowsInPage, last: last, more: pageIsFull)
    }
}
