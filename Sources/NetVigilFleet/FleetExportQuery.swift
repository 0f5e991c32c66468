import Foundation
import Logging
import NetVigilStore
import PostgresNIO

/// `GET /v1/fleet/export`: the fleet's probe results over a bounded time range, optionally of one agent and one
/// endpoint, as NDJSON (a header line, then one `probe` line per result) or one JSON document. Each line carries the
/// agent export's probe fields (deploy/schemas/fleet-export.schema.json) plus `agent` and `seq`; the chains are
/// what the central database keeps of them: their certificates' SHA-256 values and the leaf's key and issuer.
///
/// Read in pages of ``pageSize`` rows, one short statement each, keyed on `(time, agent, seq)`: a slow client holds
/// no snapshot and no lock.
public struct FleetExportQuery: Sendable, Equatable {
    /// Exported ranges are at most this long (one request cannot scan the whole history).
    public static let maximumSpan = Duration.seconds(31 * 86_400)
    public static let pageSize = 1_000

    public var since: Timestamp
    public var until: Timestamp
    public var agent: String?
    public var endpoint: String?

    public init(since: Timestamp, until: Timestamp, agent: String? = nil, endpoint: String? = nil) {
        self.since = since
        self.until = until
        self.agent = agent
        self.endpoint = endpoint
    }

    /// The position after the last row of a page.
    public struct Cursor: Sendable, Equatable {
        var timeMicroseconds: Int64
        var agent: String
        var seq: Int64
    }

    /// One page of lines (each a JSON object's text, without newline) and the cursor after it; nil cursor: the end.
    public func page(after cursor: Cursor?, pairs: [(agent: String, target: String)]?, on connection: PostgresConnection,
                     logger: Logger) async throws -> (lines: [String], next: Cursor?) {
        var bindings = PostgresBindings()
        bindings.append(since.milliseconds)
        bindings.append(until.milliseconds)
        var conditions = ["p.time >= to_timestamp($1::bigint / 1000.0)", "p.time < to_timestamp($2::bigint / 1000.0)"]
        if let agent {
            bindings.append(agent)
            conditions.append("p.agent = $\(bindings.count)")
        }
        var join = ""
        if let pairs {
            bindings.append(pairs.map(\.agent))
            bindings.append(pairs.map(\.target))
            join = "JOIN unnest($\(bindings.count - 1)::text[], $\(bindings.count)::text[]) AS e(agent, target) ON p.agent = e.agent AND p.target = e.target"
        }
        if let cursor {
            bindings.append(cursor.timeMicroseconds)
            bindings.append(cursor.agent)
            bindings.append(cursor.seq)
            let n = bindings.count
            conditions.append("((extract(epoch FROM p.time) * 1000000)::bigint, p.agent, p.seq) > ($\(n - 2), $\(n - 1), $\(n))")
        }
        let sql = """
            SELECT (extract(epoch FROM p.time) * 1000000)::bigint, p.agent, p.seq, \(Self.lineSQL)::text
            FROM probe_results p \(join)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY 1, p.agent, p.seq
            LIMIT \(Self.pageSize)
            """
        var lines: [String] = []
        var last: Cursor?
        for try await (micros, agent, seq, line) in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings),
                                                                              logger: logger).decode((Int64, String, Int64, String).self) {
            lines.append(line)
            last = Cursor(timeMicroseconds: micros, agent: agent, seq: seq)
        }
        return (lines, lines.count < Self.pageSize ? nil : last)
    }

    /// One probe line, built by PostgreSQL: the agent export's keys and nesting (`error`, `http`, `timings_ms`, `tls`),
    /// with times as RFC 3339 UTC milliseconds.
    static let lineSQL = """
        json_build_object(
            'type', 'probe', 'agent', p.agent, 'seq', p.seq,
            'time', to_char(p.time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'target', p.target, 'url', p.url, 'outcome', p.outcome,
            'error', CASE WHEN p.error_kind IS NULL THEN NULL
                          ELSE json_build_object('kind', p.error_kind, 'message', p.error_message) END,
            'http', CASE WHEN p.http_status IS NULL THEN NULL
                         ELSE json_build_object('status', p.http_status, 'version', p.http_version,
                                                'content_type', p.content_type, 'content_length', p.content_length) END,
            'timings_ms', json_build_object('resolve', p.resolve_ms, 'connect', p.connect_ms, 'proxy', p.proxy_ms,
                                            'tls', p.tls_ms, 'revocation', p.revocation_ms, 'processing', p.processing_ms,
                                            'transfer', p.transfer_ms, 'total', p.total_ms),
            'tls', CASE WHEN p.tls_version IS NULL THEN NULL
                        ELSE json_build_object('version', p.tls_version, 'cipher', p.tls_cipher, 'alpn', p.alpn) END,
            'trust_verdict', p.trust_verdict, 'pin_verdict', p.pin_verdict,
            'reachability_status', p.reachability_status, 'resolved_address', p.resolved_address,
            'interface', p.interface, 'interface_kind', p.interface_kind, 'redirect_count', p.redirect_count,
            'served_chain_sha256', CASE WHEN p.served_chain IS NULL THEN '[]'::json
                                        ELSE to_json(string_to_array(p.served_chain, ':')) END,
            'validated_chain_sha256', CASE WHEN p.validated_chain IS NULL THEN '[]'::json
                                           ELSE to_json(string_to_array(p.validated_chain, ':')) END,
            'served_spki', p.served_spki, 'served_issuer', p.served_issuer,
            'findings', p.findings, 'details', netvigil_json_or_null(p.details))
        """

    /// The NDJSON header line / the JSON document's opening fields.
    public func headerFields(version: String, exportedAt: Timestamp) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        struct Range: Encodable {
            var since: Timestamp
            var until: Timestamp
            var agent: String?
            var endpoint: String?
        }
        let range = (try? encoder.encode(Range(since: since, until: until, agent: agent, endpoint: endpoint)))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let versionText = (try? encoder.encode(version)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        let exported = (try? encoder.encode(exportedAt)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        return "\"netvigil\":\(versionText),\"exported_at\":\(exported),\"range\":\(range)"
    }
}

/// How `/v1/fleet/export` writes rows.
public enum FleetExportFormat: String, Sendable {
    /// A header line, then one `probe` line per result.
    case ndjson
    /// One document: the header's fields and `probes`.
    case json
}
