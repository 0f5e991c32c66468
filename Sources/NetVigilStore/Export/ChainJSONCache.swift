import GRDB

/// Serialized chain arrays by chain id, kept for one export: chains repeat across results, so most rows hit it.
final class ChainJSONCache {
    /// The certificates of chain `?`, in position order.
    static let sql = """
        SELECT c.subject, c.issuer, c.not_after_ms, c.sha256, c.spki_pin
        FROM chain_certificates l JOIN certificates c ON c.id = l.certificate_id
        WHERE l.chain_id = ? ORDER BY l.position
        """
    /// Chains kept before the cache starts over.
    static let limit = 10_000
    private var json: [Int64: [UInt8]] = [:]

    /// Writes the chain's certificates as a JSON array (`[]` for no chain), reading them with `statement`
    /// (`sql`, prepared in the current transaction) when the chain is not cached.
    func write(_ id: Int64?, statement: Statement, to writer: inout JSONStreamWriter) throws {
        guard let id else { return writer.raw("[]") }
        if let cached = json[id] { return writer.rawBytes(cached) }
        var local = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 4_096)
        local.raw("[")
        let rows = try Row.fetchCursor(statement, arguments: [id])
        var first = true
        while let row = try rows.next() {
            if !first { local.raw(",") }
            first = false
            local.certificate(subject: row[0], issuer: row[1], notAfter: Timestamp(milliseconds: row[2]),
                              sha256: row[3], spkiPin: row[4])
        }
        local.raw("]")
        let bytes = local.bytes
        if json.count >= Self.limit { json.removeAll(keepingCapacity: true) }
        json[id] = bytes
        writer.rawBytes(bytes)
    }
}
