import GRDB
import Synchronization

extension Store {
    /// Probe results per multi-row INSERT: SQLite runs one statement program (cursors, constraint setup) for all of
    /// them, so ingest is faster than with one row per statement.
    static let probesPerStatement = 32

    /// Writes a batch in one transaction: all rows commit together or none do.
    ///
    /// The transaction runs with foreign keys off and the results' INSERT is `OR FAIL`, so no statement needs a
    /// statement journal (a copy of every page a multi-row INSERT changes, kept so it alone could be undone): that
    /// copying was a quarter of ingest CPU. Chain and certificate ids come from the same transaction or the id cache,
    /// and any failure still rolls the whole batch back.
    public func write(_ batch: WriteBatch) async throws {
        guard !batch.isEmpty else { return }
        do {
            let learned = try await writeWithoutForeignKeys(largeCache: batch.count >= Store.largeBatchRows) { db in
                var inserter = BatchInserter(db: db, known: self.knownIDs.withLock { $0 })
                try inserter.insert(batch)
                self.rowTally.adjust(.probeResults, by: batch.probes.count)
                self.rowTally.adjust(.reachabilityEvents, by: batch.reachabilityEvents.count)
                return inserter.learned
            }
            if !learned.certificates.isEmpty || !learned.chains.isEmpty {
                knownIDs.withLock { $0.merge(learned) }
            }
        } catch {
            rowTally.forget()
            throw Store.classify(error, path: path)
        }
    }
}

/// Inserts one batch inside a write transaction. Ids it learns reach the shared cache only after commit.
///
/// Rows are bound with the SQLite C API on cached statements (`RawStatement`); chains and certificates are
/// looked up in the in-memory id cache first, so a repeated chain costs no query.
private struct BatchInserter {
    let db: Database
    let known: Store.KnownIDs
    var learned = Store.KnownIDs()
    /// Chains the batch's results point at, with the newest such result's time (`certificate_chains.last_used_ms`).
    private var usedChains: [Int64: Int64] = [:]

    init(db: Database, known: Store.KnownIDs) {
        self.db = db
        self.known = known
    }

    mutating func insert(_ batch: WriteBatch) throws {
        if !batch.probes.isEmpty { try insertProbes(batch.probes) }
        if !batch.reachabilityEvents.isEmpty { try insertReachabilityEvents(batch.reachabilityEvents) }
        if !batch.alerts.isEmpty { try insertAlerts(batch.alerts) }
    }

    /// The probe INSERTs, built once from `ProbeColumn`: `probesPerStatement` rows, and one row.
    private static let insertManyProbesSQL = ProbeColumn.insertSQL(rows: Store.probesPerStatement)
    private static let insertOneProbeSQL = ProbeColumn.insertSQL(rows: 1)

    private mutating func insertProbes(_ probes: [ProbeRecord]) throws {
        let many = Store.probesPerStatement
        let full = RawStatement(try db.cachedStatement(sql: Self.insertManyProbesSQL))
        let single = RawStatement(try db.cachedStatement(sql: Self.insertOneProbeSQL))
        full.reset()
        single.reset()
        let columns = CInt(ProbeColumn.specs.count)
        var index = probes.startIndex
        while index < probes.endIndex {
            let rows = probes.endIndex - index >= many ? many : 1
            let statement = rows == many ? full : single
            for row in 0..<rows {
                try bind(probes[index + row], to: statement, offset: CInt(row) * columns)
            }
            try statement.execute(db)
            index += rows
        }
        try markChainsUsed()
    }

    /// Binds one row's columns, in `ProbeColumn` order, after parameter `offset`.
    private mutating func bind(_ probe: ProbeRecord, to insert: RawStatement, offset: CInt) throws {
        let probe = probe.exceedsBounds ? probe.bounded : probe  // a server must not make a row large
        let served = try chainID(probe.servedChain)
        // Served and validated chains are usually the same list: one lookup.
        let validated = probe.validatedChain.isEmpty ? nil
            : ChainKey(probe.validatedChain) == ChainKey(probe.servedChain) ? served : try chainID(probe.validatedChain)
        let time = probe.time.milliseconds
        if let served { markUsed(served, at: time) }
        if let validated, validated != served { markUsed(validated, at: time) }
        var binder = ProbeBinder(statement: insert, served: served, validated: validated)
        for spec in ProbeColumn.specs {
            binder.column = spec.column
            binder.index = spec.column.bindIndex(offset: offset)
            probe.visit(spec.column, &binder)
        }
    }

    /// Keeps `certificate_chains.last_used_ms` at or after the time of every result pointing at the chain, which
    /// lets retention find unreferenced chains without an index on the results' chain columns.
    private mutating func markChainsUsed() throws {
        guard !usedChains.isEmpty else { return }
        let update = RawStatement(try db.cachedStatement(sql: """
            UPDATE certificate_chains SET last_used_ms = ? WHERE id = ? AND last_used_ms < ?
            """))
        for (id, time) in usedChains.sorted(by: { $0.key < $1.key }) {
            update.bind(time, at: 1)
            update.bind(id, at: 2)
            update.bind(time, at: 3)
            try update.execute(db)
        }
        usedChains.removeAll()
    }

    private mutating func markUsed(_ chain: Int64, at time: Int64) {
        if let newest = usedChains[chain], newest >= time { return }
        usedChains[chain] = time
    }

    /// The id of a stored chain (nil for an empty one), inserting chain and certificates when new.
    private mutating func chainID(_ certificates: [CertificateRecord]) throws -> Int64? {
        guard !certificates.isEmpty else { return nil }
        let key = ChainKey(certificates)
        if let id = learned.chains[key] ?? known.chains[key] { return id }
        let fingerprint = key.fingerprint
        let select = try db.cachedStatement(sql: "SELECT id FROM certificate_chains WHERE fingerprint = ?")
        let id: Int64
        if let stored = try Int64.fetchOne(select, arguments: [fingerprint]) {
            id = stored
        } else {
            try db.cachedStatement(sql: "INSERT INTO certificate_chains (fingerprint) VALUES (?)").execute(arguments: [fingerprint])
            id = db.lastInsertedRowID
            let link = try db.cachedStatement(sql: "INSERT INTO chain_certificates (chain_id, position, certificate_id) VALUES (?, ?, ?)")
            for (position, certificate) in certificates.enumerated() {
                try link.execute(arguments: [id, position, try certificateID(certificate)])
            }
        }
        learned.chains[key] = id
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
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO reachability_events (time_ms, target, status, status_code, flags, flag_names,
                interface, interface_kind, gateway, source, family)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        insert.reset()
        for event in events {
            insert.bind(event.time.milliseconds, at: 1)
            insert.bind(event.target, at: 2)
            insert.bind(event.status, at: 3)
            insert.bind(Int64(event.statusCode), at: 4)
            insert.bind(event.flags, at: 5)
            insert.bind(event.flagNames.joined(separator: ","), at: 6)
            insert.bind(event.interface, at: 7)
            insert.bind(event.interfaceKind, at: 8)
            insert.bind(event.gateway, at: 9)
            insert.bind(event.source, at: 10)
            insert.bind(event.family, at: 11)
            try insert.execute(db)
        }
    }

    private func insertAlerts(_ alerts: [AlertRecord]) throws {
        // An identical idempotency key means the alert is already in the outbox: keep the first.
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO alerts (time_ms, kind, target, sink, payload, state, attempts, next_attempt_ms,
                idempotency_key, last_error, delivered_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(idempotency_key) DO NOTHING
            """))
        insert.reset()
        for alert in alerts {
            insert.bind(alert.time.milliseconds, at: 1)
            insert.bind(alert.kind, at: 2)
            insert.bind(alert.target, at: 3)
            insert.bind(alert.sink, at: 4)
            insert.bind(alert.payloadJSON, at: 5)
            insert.bind(alert.state.rawValue, at: 6)
            insert.bind(Int64(alert.attempts), at: 7)
            insert.bind(alert.nextAttemptAt.milliseconds, at: 8)
            insert.bind(alert.idempotencyKey, at: 9)
            insert.bind(alert.lastError, at: 10)
            insert.bind(alert.deliveredAt?.milliseconds, at: 11)
            try insert.execute(db)
        }
    }
}

/// Binds each column value `ProbeRecord.visit` hands over at `index`; chain columns get the ids the batch assigned.
private struct ProbeBinder: ProbeColumnVisitor {
    let statement: RawStatement
    let served: Int64?
    let validated: Int64?
    var column = ProbeColumn.time
    var index: CInt = 1

    init(statement: RawStatement, served: Int64?, validated: Int64?) {
        self.statement = statement
        self.served = served
        self.validated = validated
    }

    mutating func integer(_ value: Int64?) { statement.bind(value, at: index) }
    mutating func milliseconds(_ value: Double?) { statement.bind(value, at: index) }
    mutating func text(_ value: String?) { statement.bind(value, at: index) }
    mutating func chain(_ certificates: [CertificateRecord]) {
        statement.bind(column == .servedChain ? served : validated, at: index)
    }
}
