import GRDB
import Synchronization

extension Store {
    /// Writes a batch in one transaction: all rows commit together or none do.
    public func write(_ batch: WriteBatch) async throws {
        guard !batch.isEmpty else { return }
        do {
            let learned = try await pool.write { db in
                var inserter = BatchInserter(db: db, known: self.knownIDs.withLock { $0 })
                try inserter.insert(batch)
                return inserter.learned
            }
            if !learned.certificates.isEmpty || !learned.chains.isEmpty {
                knownIDs.withLock { $0.merge(learned) }
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}

/// Inserts one batch inside a write transaction. Ids it learns reach the shared cache only after commit.
private struct BatchInserter {
    let db: Database
    let known: Store.KnownIDs
    var learned = Store.KnownIDs()

    init(db: Database, known: Store.KnownIDs) {
        self.db = db
        self.known = known
    }

    mutating func insert(_ batch: WriteBatch) throws {
        if !batch.probes.isEmpty { try insertProbes(batch.probes) }
        if !batch.reachabilityEvents.isEmpty { try insertReachabilityEvents(batch.reachabilityEvents) }
        if !batch.alerts.isEmpty { try insertAlerts(batch.alerts) }
    }

    private mutating func insertProbes(_ probes: [ProbeRecord]) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO probe_results (time_ms, target, url, outcome, error_kind, error_message, http_status,
                http_version, content_type, content_length, resolve_ms, connect_ms, tls_ms, processing_ms,
                transfer_ms, total_ms, tls_version, tls_cipher, alpn, trust_verdict, pin_verdict,
                reachability_status, resolved_address, redirect_count, served_chain_id, validated_chain_id, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for probe in probes {
            let served = try chainID(probe.servedChain)
            let validated = try chainID(probe.validatedChain)
            let timings = probe.timings
            let values: [(any DatabaseValueConvertible)?] = [
                probe.time.milliseconds, probe.target, probe.url, probe.outcome.rawValue, probe.errorKind,
                probe.errorMessage, probe.httpStatus, probe.httpVersion, probe.contentType, probe.contentLength,
                timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer, timings.total,
                probe.tlsVersion, probe.tlsCipher, probe.alpn, probe.trustVerdict, probe.pinVerdict,
                probe.reachabilityStatus, probe.resolvedAddress, probe.redirectCount, served, validated, probe.detailsJSON,
            ]
            statement.setUncheckedArguments(StatementArguments(values))
            try statement.execute()
        }
    }

    /// The id of a stored chain (nil for an empty one), inserting chain and certificates when new.
    private mutating func chainID(_ certificates: [CertificateRecord]) throws -> Int64? {
        guard !certificates.isEmpty else { return nil }
        let fingerprint = certificates.map(\.sha256).joined(separator: ":")
        if let id = learned.chains[fingerprint] ?? known.chains[fingerprint] { return id }
        let select = try db.cachedStatement(sql: "SELECT id FROM certificate_chains WHERE fingerprint = ?")
        if let id = try Int64.fetchOne(select, arguments: [fingerprint]) {
            learned.chains[fingerprint] = id
            return id
        }
        try db.cachedStatement(sql: "INSERT INTO certificate_chains (fingerprint) VALUES (?)").execute(arguments: [fingerprint])
        let id = db.lastInsertedRowID
        let link = try db.cachedStatement(sql: "INSERT INTO chain_certificates (chain_id, position, certificate_id) VALUES (?, ?, ?)")
        for (position, certificate) in certificates.enumerated() {
            try link.execute(arguments: [id, position, try certificateID(certificate)])
        }
        learned.chains[fingerprint] = id
        return id
    }

    /// The id of a stored certificate, inserting it when new.
    private mutating func certificateID(_ certificate: CertificateRecord) throws -> Int64 {
        if let id = learned.certificates[certificate.sha256] ?? known.certificates[certificate.sha256] { return id }
        let select = try db.cachedStatement(sql: "SELECT id FROM certificates WHERE sha256 = ?")
        if let id = try Int64.fetchOne(select, arguments: [certificate.sha256]) {
            learned.certificates[certificate.sha256] = id
            return id
        }
        try db.cachedStatement(sql: """
            INSERT INTO certificates (sha256, pem, subject, issuer, serial, not_before_ms, not_after_ms, spki_pin)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [certificate.sha256, certificate.pem, certificate.subject, certificate.issuer,
                                     certificate.serial, certificate.notBefore.milliseconds,
                                     certificate.notAfter.milliseconds, certificate.spkiPin])
        let id = db.lastInsertedRowID
        learned.certificates[certificate.sha256] = id
        return id
    }

    private func insertReachabilityEvents(_ events: [ReachabilityEventRecord]) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO reachability_events (time_ms, target, status, status_code, flags, flag_names,
                interface, interface_kind, gateway, source, family)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for event in events {
            let values: [(any DatabaseValueConvertible)?] = [
                event.time.milliseconds, event.target, event.status, event.statusCode, event.flags,
                event.flagNames.joined(separator: ","), event.interface, event.interfaceKind, event.gateway,
                event.source, event.family,
            ]
            statement.setUncheckedArguments(StatementArguments(values))
            try statement.execute()
        }
    }

    private func insertAlerts(_ alerts: [AlertRecord]) throws {
        // An identical idempotency key means the alert is already in the outbox: keep the first.
        let statement = try db.cachedStatement(sql: """
            INSERT INTO alerts (time_ms, kind, target, sink, payload, state, attempts, next_attempt_ms,
                idempotency_key, last_error, delivered_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(idempotency_key) DO NOTHING
            """)
        for alert in alerts {
            let values: [(any DatabaseValueConvertible)?] = [
                alert.time.milliseconds, alert.kind, alert.target, alert.sink, alert.payloadJSON,
                alert.state.rawValue, alert.attempts, alert.nextAttemptAt.milliseconds, alert.idempotencyKey,
                alert.lastError, alert.deliveredAt?.milliseconds,
            ]
            statement.setUncheckedArguments(StatementArguments(values))
            try statement.execute()
        }
    }
}
