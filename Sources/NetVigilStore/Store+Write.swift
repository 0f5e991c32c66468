import GRDB
import Synchronization

extension Store {
    /// Writes a batch in one transaction: all rows commit together or none do.
    public func write(_ batch: WriteBatch) async throws {
        guard !batch.isEmpty else { return }
        do {
            let newIDs = try await pool.write { db in
                try Self.insert(batch, in: db, knownIDs: self.certificateIDs)
            }
            if !newIDs.isEmpty {
                certificateIDs.withLock { cache in
                    if cache.count + newIDs.count > Self.certificateCacheLimit { cache.removeAll(keepingCapacity: true) }
                    cache.merge(newIDs) { _, new in new }
                }
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    /// Inserts a batch; returns certificate ids it learned (added to the cache only after commit).
    static func insert(_ batch: WriteBatch, in db: Database, knownIDs: borrowing Mutex<[String: Int64]>) throws -> [String: Int64] {
        var learned: [String: Int64] = [:]
        if !batch.probes.isEmpty {
            let probeStatement = try db.cachedStatement(sql: """
                INSERT INTO probe_results (time_ms, target, url, outcome, error_kind, error_message, http_status,
                    http_version, content_type, content_length, resolve_ms, connect_ms, tls_ms, processing_ms,
                    transfer_ms, total_ms, tls_version, tls_cipher, alpn, trust_verdict, pin_verdict,
                    reachability_status, resolved_address, redirect_count, details)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let linkStatement = try db.cachedStatement(sql: """
                INSERT INTO probe_certificates (result_id, chain, position, certificate_id) VALUES (?, ?, ?, ?)
                """)
            for probe in batch.probes {
                let timings = probe.timings
                let values: [(any DatabaseValueConvertible)?] = [
                    probe.time.milliseconds, probe.target, probe.url, probe.outcome.rawValue, probe.errorKind,
                    probe.errorMessage, probe.httpStatus, probe.httpVersion, probe.contentType, probe.contentLength,
                    timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer, timings.total,
                    probe.tlsVersion, probe.tlsCipher, probe.alpn, probe.trustVerdict, probe.pinVerdict,
                    probe.reachabilityStatus, probe.resolvedAddress, probe.redirectCount, probe.detailsJSON,
                ]
                probeStatement.setUncheckedArguments(StatementArguments(values))
                try probeStatement.execute()
                let resultID = db.lastInsertedRowID
                for (chain, certificates) in [(0, probe.servedChain), (1, probe.validatedChain)] {
                    for (position, certificate) in certificates.enumerated() {
                        let certificateID = try certificateID(for: certificate, in: db, knownIDs: knownIDs, learned: &learned)
                        linkStatement.setUncheckedArguments([resultID, chain, position, certificateID])
                        try linkStatement.execute()
                    }
                }
            }
        }
        if !batch.reachabilityEvents.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT INTO reachability_events (time_ms, target, status, status_code, flags, flag_names,
                    interface, interface_kind, gateway, source, family)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for event in batch.reachabilityEvents {
                let values: [(any DatabaseValueConvertible)?] = [
                    event.time.milliseconds, event.target, event.status, event.statusCode, event.flags,
                    event.flagNames.joined(separator: ","), event.interface, event.interfaceKind, event.gateway,
                    event.source, event.family,
                ]
                statement.setUncheckedArguments(StatementArguments(values))
                try statement.execute()
            }
        }
        if !batch.alerts.isEmpty {
            // An identical idempotency key means the alert is already in the outbox: keep the first.
            let statement = try db.cachedStatement(sql: """
                INSERT INTO alerts (time_ms, kind, target, sink, payload, state, attempts, next_attempt_ms,
                    idempotency_key, last_error, delivered_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(idempotency_key) DO NOTHING
                """)
            for alert in batch.alerts {
                let values: [(any DatabaseValueConvertible)?] = [
                    alert.time.milliseconds, alert.kind, alert.target, alert.sink, alert.payloadJSON,
                    alert.state.rawValue, alert.attempts, alert.nextAttemptAt.milliseconds, alert.idempotencyKey,
                    alert.lastError, alert.deliveredAt?.milliseconds,
                ]
                statement.setUncheckedArguments(StatementArguments(values))
                try statement.execute()
            }
        }
        return learned
    }

    /// The id of a stored certificate, inserting it when new.
    private static func certificateID(for certificate: CertificateRecord, in db: Database,
                                      knownIDs: borrowing Mutex<[String: Int64]>,
                                      learned: inout [String: Int64]) throws -> Int64 {
        if let id = learned[certificate.sha256] ?? knownIDs.withLock({ $0[certificate.sha256] }) {
            return id
        }
        let select = try db.cachedStatement(sql: "SELECT id FROM certificates WHERE sha256 = ?")
        if let id = try Int64.fetchOne(select, arguments: [certificate.sha256]) {
            learned[certificate.sha256] = id
            return id
        }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO certificates (sha256, pem, subject, issuer, serial, not_before_ms, not_after_ms, spki_pin)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insert.setUncheckedArguments([certificate.sha256, certificate.pem, certificate.subject, certificate.issuer,
                                      certificate.serial, certificate.notBefore.milliseconds,
                                      certificate.notAfter.milliseconds, certificate.spkiPin])
        try insert.execute()
        let id = db.lastInsertedRowID
        learned[certificate.sha256] = id
        return id
    }
}
