/// A local table whose rows the fleet shipper copies to PostgreSQL, in the order of its ids (commit order: SQLite gives
/// each new row the highest id so far plus one, and only retention deletes, oldest first).
public enum ShippedStream: String, Sendable, CaseIterable, Hashable {
    case probeResults = "probe_results"
    case reachabilityEvents = "reachability_events"
    case alertEvents = "alerts"

    /// Each row as one JSON object (`seq` = the local id, `time_ms`, then the columns), built by SQLite's
    /// `json_object`, so that a batch goes to PostgreSQL as one `jsonb` parameter whatever its size. Only columns that
    /// never change after the insert: an alert's delivery state is local bookkeeping.
    var jsonSelect: String {
        switch self {
        case .probeResults:
            """
            SELECT p.id, p.time_ms, json_object('seq', p.id, 'time_ms', p.time_ms, 'target', p.target, 'url', p.url,
                'outcome', p.outcome, 'error_kind', p.error_kind, 'error_message', p.error_message,
                'http_status', p.http_status, 'http_version', p.http_version, 'content_type', p.content_type,
                'content_length', p.content_length, 'resolve_ms', p.resolve_ms, 'connect_ms', p.connect_ms,
                'tls_ms', p.tls_ms, 'processing_ms', p.processing_ms, 'transfer_ms', p.transfer_ms,
                'total_ms', p.total_ms, 'proxy_ms', p.proxy_ms, 'revocation_ms', p.revocation_ms,
                'tls_version', p.tls_version, 'tls_cipher', p.tls_cipher, 'alpn', p.alpn,
                'trust_verdict', p.trust_verdict, 'pin_verdict', p.pin_verdict,
                'reachability_status', p.reachability_status, 'resolved_address', p.resolved_address,
                'redirect_count', p.redirect_count, 'interface', p.interface, 'interface_kind', p.interface_kind,
                'served_chain', (SELECT c.fingerprint FROM certificate_chains c WHERE c.id = p.served_chain_id),
                'validated_chain', (SELECT c.fingerprint FROM certificate_chains c WHERE c.id = p.validated_chain_id),
                'findings', json(p.findings), 'details', p.details,
                'served_spki', leaf.spki_pin, 'served_issuer', leaf.issuer)
            FROM probe_results p
            LEFT JOIN chain_certificates cc ON cc.chain_id = p.served_chain_id AND cc.position = 0
            LEFT JOIN certificates leaf ON leaf.id = cc.certificate_id
            WHERE p.id > ? ORDER BY p.id LIMIT ?
            """
        case .reachabilityEvents:
            """
            SELECT id, time_ms, json_object('seq', id, 'time_ms', time_ms, 'target', target, 'status', status,
                'status_code', status_code, 'flags', flags, 'flag_names', flag_names, 'interface', interface,
                'interface_kind', interface_kind, 'gateway', gateway, 'source', source, 'family', family)
            FROM reachability_events WHERE id > ? ORDER BY id LIMIT ?
            """
        case .alertEvents:
            """
            SELECT id, time_ms, json_object('seq', id, 'time_ms', time_ms, 'kind', kind, 'target', target, 'sink', sink,
                'payload', payload)
            FROM alerts WHERE id > ? ORDER BY id LIMIT ?
            """
        }
    }
}
