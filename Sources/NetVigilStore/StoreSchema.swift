import GRDB

/// The database schema, as GRDB migrations. Designed for the whole product; later features fill the columns.
///
/// Text a server controls is bounded before it is stored (`ProbeRecord.Bounds`): `url` ≤ 2,048 bytes,
/// `error_message` ≤ 1,024, `content_type`/`http_version`/`tls_cipher`/`alpn` ≤ 256, `details` ≤ 4,096, `findings`
/// ≤ 16 with messages ≤ 512.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE probe_results (
                    id INTEGER PRIMARY KEY,
                    time_ms INTEGER NOT NULL,
                    target TEXT NOT NULL,
                    url TEXT,
                    outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'failed', 'skipped')),
                    error_kind TEXT,
                    error_message TEXT,
                    http_status INTEGER,
                    http_version TEXT,
                    content_type TEXT,
                    content_length INTEGER,
                    resolve_ms REAL,
                    connect_ms REAL,
                    tls_ms REAL,
                    processing_ms REAL,
                    transfer_ms REAL,
                    total_ms REAL,
                    tls_version TEXT,
                    tls_cipher TEXT,
                    alpn TEXT,
                    trust_verdict TEXT,
                    pin_verdict TEXT,
                    reachability_status TEXT,
                    resolved_address TEXT,
                    redirect_count INTEGER NOT NULL DEFAULT 0,
                    served_chain_id INTEGER REFERENCES certificate_chains(id),
                    validated_chain_id INTEGER REFERENCES certificate_chains(id),
                    details TEXT
                );
                CREATE INDEX probe_results_time ON probe_results(time_ms);
                CREATE INDEX probe_results_target_time ON probe_results(target, time_ms);
                CREATE INDEX probe_results_served_chain ON probe_results(served_chain_id);
                CREATE INDEX probe_results_validated_chain ON probe_results(validated_chain_id);

                CREATE TABLE certificates (
                    id INTEGER PRIMARY KEY,
                    sha256 TEXT NOT NULL UNIQUE,
                    pem TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    issuer TEXT NOT NULL,
                    serial TEXT NOT NULL,
                    not_before_ms INTEGER NOT NULL,
                    not_after_ms INTEGER NOT NULL,
                    spki_pin TEXT NOT NULL
                );

                -- A chain (ordered list of certificates) is stored once however many results served it;
                -- probe_results point at their served and validated chains.
                CREATE TABLE certificate_chains (
                    id INTEGER PRIMARY KEY,
                    fingerprint TEXT NOT NULL UNIQUE  -- the certificates' sha256 values joined with ':'
                );
                CREATE TABLE chain_certificates (
                    chain_id INTEGER NOT NULL REFERENCES certificate_chains(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    certificate_id INTEGER NOT NULL REFERENCES certificates(id),
                    PRIMARY KEY (chain_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX chain_certificates_certificate ON chain_certificates(certificate_id);

                CREATE TABLE reachability_events (
                    id INTEGER PRIMARY KEY,
                    time_ms INTEGER NOT NULL,
                    target TEXT NOT NULL,
                    status TEXT NOT NULL,
                    status_code INTEGER NOT NULL,
                    flags INTEGER NOT NULL,
                    flag_names TEXT NOT NULL,
                    interface TEXT,
                    interface_kind TEXT,
                    gateway TEXT,
                    source TEXT,
                    family TEXT
                );
                CREATE INDEX reachability_events_time ON reachability_events(time_ms);
                CREATE INDEX reachability_events_target_time ON reachability_events(target, time_ms);

                CREATE TABLE alerts (
                    id INTEGER PRIMARY KEY,
                    time_ms INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    target TEXT NOT NULL,
                    sink TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_ms INTEGER NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    last_error TEXT,
                    delivered_ms INTEGER
                );
                CREATE INDEX alerts_time ON alerts(time_ms);
                CREATE INDEX alerts_target_time ON alerts(target, time_ms);
                CREATE INDEX alerts_due ON alerts(state, next_attempt_ms);
                """)
        }
        // v2: results no longer index their chain columns (only retention needed them, and the two indexes cost
        // every insert); instead a chain records the newest result that points at it, kept by the writer.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE certificate_chains ADD COLUMN last_used_ms INTEGER NOT NULL DEFAULT 0;
                UPDATE certificate_chains SET last_used_ms = MAX(
                    COALESCE((SELECT MAX(p.time_ms) FROM probe_results p WHERE p.served_chain_id = certificate_chains.id), 0),
                    COALESCE((SELECT MAX(p.time_ms) FROM probe_results p WHERE p.validated_chain_id = certificate_chains.id), 0));
                DROP INDEX probe_results_served_chain;
                DROP INDEX probe_results_validated_chain;
                """)
        }
        // v3: the network path of a result (`source:` targets): the interface it was bound to or left through, and
        // that interface's kind. NULL for results over the kernel's default route and for every older row.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                ALTER TABLE probe_results ADD COLUMN interface TEXT;
                ALTER TABLE probe_results ADD COLUMN interface_kind TEXT;
                """)
        }
        // v4: the `proxy` and `revocation` phases (issues #18, #20) and the served chain's Baseline Requirements
        // findings (a JSON array; NULL for results without a trust verdict and for rows stored before v4).
        migrator.registerMigration("v4") { db in
            try db.execute(sql: """
                ALTER TABLE probe_results ADD COLUMN proxy_ms REAL;
                ALTER TABLE probe_results ADD COLUMN revocation_ms REAL;
                ALTER TABLE probe_results ADD COLUMN findings TEXT;
                """)
        }
        // v5: where the fleet shipper (issue #53) has got to in each shipped table: the highest local id PostgreSQL
        // has acknowledged. Kept here so that it survives `kill -9` and restarts with the rows it refers to.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: """
                CREATE TABLE fleet_cursors (
                    stream TEXT PRIMARY KEY,
                    shipped_id INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    /// Tables every netvigil database has.
    static let requiredTables = ["probe_results", "certificates", "certificate_chains", "chain_certificates",
                                 "reachability_events", "alerts"]
}
