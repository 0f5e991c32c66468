import NetVigilStore
import PostgresNIO

extension ShippedStream {
    /// The central table the stream's rows go to.
    var centralTable: String {
        switch self {
        case .probeResults: "probe_results"
        case .reachabilityEvents: "reachability_events"
        case .alertEvents: "alert_events"
        }
    }

    /// The columns after `agent, seq, time`, with their PostgreSQL types (the JSON keys of `jsonSelect` by name).
    var columns: [(name: String, type: String)] {
        switch self {
        case .probeResults:
            [("target", "text"), ("url", "text"), ("outcome", "text"), ("error_kind", "text"), ("error_message", "text"),
             ("http_status", "integer"), ("http_version", "text"), ("content_type", "text"), ("content_length", "bigint"),
             ("resolve_ms", "double precision"), ("connect_ms", "double precision"), ("tls_ms", "double precision"),
             ("processing_ms", "double precision"), ("transfer_ms", "double precision"), ("total_ms", "double precision"),
             ("proxy_ms", "double precision"), ("revocation_ms", "double precision"), ("tls_version", "text"),
             ("tls_cipher", "text"), ("alpn", "text"), ("trust_verdict", "text"), ("pin_verdict", "text"),
             ("reachability_status", "text"), ("resolved_address", "text"), ("redirect_count", "integer"),
             ("interface", "text"), ("interface_kind", "text"), ("served_chain", "text"), ("validated_chain", "text"),
             ("findings", "jsonb"), ("details", "text"), ("served_spki", "text"), ("served_issuer", "text")]
        case .reachabilityEvents:
            [("target", "text"), ("status", "text"), ("status_code", "integer"), ("flags", "bigint"), ("flag_names", "text"),
             ("interface", "text"), ("interface_kind", "text"), ("gateway", "text"), ("source", "text"), ("family", "text")]
        case .alertEvents:
            [("target", "text"), ("kind", "text"), ("sink", "text"), ("payload", "text")]
        }
    }

    /// One statement that inserts a batch (`$1`: the JSON array of rows, `$2`: the agent) and ignores rows already
    /// there, so a batch sent twice (a lost acknowledgement, a `kill -9` before the local cursor moved) lands once.
    /// For probe results the same statement keeps `latest_results` current (only ever moving to a later result: by time,
    /// then `seq`, so that ids restarted by an emptied local table still count as newer).
    var insertSQL: String {
        let names = columns.map(\.name)
        let record = (["seq bigint", "time_ms bigint"] + columns.map { "\($0.name) \($0.type)" }).joined(separator: ", ")
        let insert = """
            INSERT INTO \(centralTable) (agent, seq, time, \(names.joined(separator: ", ")))
            SELECT $2, seq, to_timestamp(time_ms / 1000.0), \(names.joined(separator: ", ")) FROM batch ORDER BY seq
            ON CONFLICT DO NOTHING
            """
        guard self == .probeResults else {
            return "WITH batch AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(\(record))) \(insert)"
        }
        return """
            WITH batch AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(\(record))),
            inserted AS (\(insert))
            INSERT INTO latest_results (agent, target, seq, time, outcome, error_kind, http_status, total_ms, trust_verdict,
                                        pin_verdict, url, served_spki, served_issuer)
            SELECT DISTINCT ON (target) $2, target, seq, to_timestamp(time_ms / 1000.0), outcome, error_kind, http_status,
                   total_ms, trust_verdict, pin_verdict, url, served_spki, served_issuer
            FROM batch ORDER BY target, seq DESC
            ON CONFLICT (agent, target) DO UPDATE SET seq = EXCLUDED.seq, time = EXCLUDED.time, outcome = EXCLUDED.outcome,
                error_kind = EXCLUDED.error_kind, http_status = EXCLUDED.http_status, total_ms = EXCLUDED.total_ms,
                trust_verdict = EXCLUDED.trust_verdict, pin_verdict = EXCLUDED.pin_verdict, url = EXCLUDED.url,
                served_spki = EXCLUDED.served_spki, served_issuer = EXCLUDED.served_issuer
            WHERE (latest_results.time, latest_results.seq) < (EXCLUDED.time, EXCLUDED.seq)
            """
    }

    /// The batch insert as a query with its two parameters.
    func insertQuery(json: String, agent: String) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(json)
        bindings.append(agent)
        return PostgresQuery(unsafeSQL: insertSQL, binds: bindings)
    }
}
