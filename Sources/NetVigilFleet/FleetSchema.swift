/// The central database's schema, as numbered migrations (docs/fleet.md documents it as a public interface).
///
/// Each migration is a list of statements run one by one inside `migrate`'s single transaction (PostgreSQL's DDL is
/// transactional, so a failed migration leaves nothing behind). Applied versions are rows of
/// `netvigil_schema_migrations`; a migration is never edited once released, a change is a new one.
public enum FleetSchema {
    /// The key of the transaction-scoped advisory lock `migrate` and partition creation take (two hosts migrating at
    /// once run one after the other; the second finds nothing left to do).
    public static let advisoryLock: Int64 = 0x6E76_5F66_6C65_6574 // "nv_fleet"

    /// The history tables, partitioned by day on `time`.
    public static let partitionedTables = ["probe_results", "reachability_events", "alert_events"]

    /// Migrations by version, ascending.
    public static let migrations: [(version: Int, statements: [String])] = [(1, version1), (2, version2), (3, version3)]

    /// The newest version this netvigil knows.
    public static var currentVersion: Int { migrations.last?.version ?? 0 }

    static let version1: [String] = [
        // Group roles (cluster-wide: another database of the cluster may have made them already).
        """
        DO $$ BEGIN
            CREATE ROLE netvigil_agent NOLOGIN;
        EXCEPTION WHEN duplicate_object THEN NULL;
        END $$
        """,
        """
        DO $$ BEGIN
            CREATE ROLE netvigil_reader NOLOGIN;
        EXCEPTION WHEN duplicate_object THEN NULL;
        END $$
        """,
        "CREATE TABLE netvigil_settings (key text PRIMARY KEY, value text NOT NULL)",
        """
        CREATE TABLE agents (
            agent text PRIMARY KEY,
            version text NOT NULL,
            labels jsonb NOT NULL DEFAULT '{}',
            targets jsonb NOT NULL DEFAULT '[]',
            config_digest text NOT NULL,
            last_seen timestamptz NOT NULL
        )
        """,
        """
        CREATE TABLE probe_results (
            agent text NOT NULL,
            seq bigint NOT NULL,
            time timestamptz NOT NULL,
            target text NOT NULL,
            url text,
            outcome text NOT NULL,
            error_kind text,
            error_message text,
            http_status integer,
            http_version text,
            content_type text,
            content_length bigint,
            resolve_ms double precision,
            connect_ms double precision,
            tls_ms double precision,
            processing_ms double precision,
            transfer_ms double precision,
            total_ms double precision,
            proxy_ms double precision,
            revocation_ms double precision,
            tls_version text,
            tls_cipher text,
            alpn text,
            trust_verdict text,
            pin_verdict text,
            reachability_status text,
            resolved_address text,
            redirect_count integer NOT NULL DEFAULT 0,
            interface text,
            interface_kind text,
            served_chain text,
            validated_chain text,
            findings jsonb,
            details text,
            PRIMARY KEY (agent, seq, time)
        ) PARTITION BY RANGE (time)
        """,
        "CREATE INDEX probe_results_target_time ON probe_results (target, time)",
        "CREATE INDEX probe_results_agent_time ON probe_results (agent, time)",
        """
        CREATE TABLE reachability_events (
            agent text NOT NULL,
            seq bigint NOT NULL,
            time timestamptz NOT NULL,
            target text NOT NULL,
            status text NOT NULL,
            status_code integer NOT NULL,
            flags bigint NOT NULL,
            flag_names text NOT NULL,
            interface text,
            interface_kind text,
            gateway text,
            source text,
            family text,
            PRIMARY KEY (agent, seq, time)
        ) PARTITION BY RANGE (time)
        """,
        "CREATE INDEX reachability_events_target_time ON reachability_events (target, time)",
        "CREATE INDEX reachability_events_agent_time ON reachability_events (agent, time)",
        """
        CREATE TABLE alert_events (
            agent text NOT NULL,
            seq bigint NOT NULL,
            time timestamptz NOT NULL,
            kind text NOT NULL,
            target text NOT NULL,
            sink text NOT NULL,
            payload text NOT NULL,
            PRIMARY KEY (agent, seq, time)
        ) PARTITION BY RANGE (time)
        """,
        "CREATE INDEX alert_events_target_time ON alert_events (target, time)",
        "CREATE INDEX alert_events_agent_time ON alert_events (agent, time)",
        """
        CREATE TABLE latest_results (
            agent text NOT NULL,
            target text NOT NULL,
            seq bigint NOT NULL,
            time timestamptz NOT NULL,
            outcome text NOT NULL,
            error_kind text,
            http_status integer,
            total_ms double precision,
            trust_verdict text,
            pin_verdict text,
            PRIMARY KEY (agent, target)
        )
        """,
        // Day partitions on demand: SECURITY DEFINER, so an agent whose batch holds a day nobody made yet (a clock
        // ahead, a long outage) can have it made without any right to DDL. Checked without the lock first: a day that
        // exists costs three catalogue look-ups.
        """
        CREATE FUNCTION netvigil_ensure_partitions(first_day date, last_day date) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            day date;
            parent text;
            child text;
            made integer := 0;
            locked boolean := false;
        BEGIN
            IF first_day IS NULL OR last_day IS NULL OR last_day < first_day OR last_day - first_day > 31 THEN
                RAISE EXCEPTION 'netvigil_ensure_partitions: at most 32 days at once (% to %)', first_day, last_day;
            END IF;
            day := first_day;
            WHILE day <= last_day LOOP
                FOREACH parent IN ARRAY ARRAY['probe_results', 'reachability_events', 'alert_events'] LOOP
                    child := parent || '_' || to_char(day, 'YYYYMMDD');
                    IF to_regclass('public.' || child) IS NULL THEN
                        IF NOT locked THEN
                            PERFORM pg_advisory_xact_lock(\(advisoryLock));
                            locked := true;
                        END IF;
                        IF to_regclass('public.' || child) IS NULL THEN
                            EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I FOR VALUES FROM (%L) TO (%L)',
                                           child, parent, to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00',
                                           to_char(day + 1, 'YYYY-MM-DD') || ' 00:00:00+00');
                            made := made + 1;
                        END IF;
                    END IF;
                END LOOP;
                day := day + 1;
            END LOOP;
            RETURN made;
        END $$
        """,
        "REVOKE ALL ON FUNCTION netvigil_ensure_partitions(date, date) FROM PUBLIC",
        "GRANT EXECUTE ON FUNCTION netvigil_ensure_partitions(date, date) TO netvigil_agent",
        // Rights: agents insert history and keep their own latest results and heartbeat; readers read everything.
        "GRANT USAGE ON SCHEMA public TO netvigil_agent, netvigil_reader",
        "GRANT SELECT, INSERT ON probe_results, reachability_events, alert_events TO netvigil_agent",
        "GRANT SELECT, INSERT, UPDATE ON latest_results, agents TO netvigil_agent",
        """
        GRANT SELECT ON probe_results, reachability_events, alert_events, latest_results, agents, netvigil_settings,
            netvigil_schema_migrations TO netvigil_reader
        """,
    ] + rowLevelSecurity(on: ["probe_results", "reachability_events", "alert_events", "latest_results", "agents"])

    /// Version 2, the fleet view (issue #54): what a result's served leaf is (its SPKI pin and issuer, so that the hub
    /// groups agents by the key they are served without parsing certificates), the URL of each latest result (agents
    /// may name one endpoint differently), each agent's shipping lag and heartbeat interval as of its heartbeat, and the hub's own tables.
    /// The hub logs in as a member of `netvigil_hub`: it reads everything as `netvigil_reader` does and writes only
    /// its alert state and outbox.
    static let version2: [String] = [
        "ALTER TABLE probe_results ADD COLUMN served_spki text, ADD COLUMN served_issuer text",
        "ALTER TABLE latest_results ADD COLUMN url text, ADD COLUMN served_spki text, ADD COLUMN served_issuer text",
        "ALTER TABLE agents ADD COLUMN shipping_lag_seconds double precision NOT NULL DEFAULT 0, ADD COLUMN heartbeat_seconds double precision",
        """
        DO $$ BEGIN
            CREATE ROLE netvigil_hub NOLOGIN;
        EXCEPTION WHEN duplicate_object THEN NULL;
        END $$
        """,
        "GRANT netvigil_reader TO netvigil_hub",
        // One row per fleet alert ever raised (kind and subject: `endpoint_down` and an endpoint, `agent_silent` and
        // an agent): whether it fires now, since when, and the payload it was last sent with.
        """
        CREATE TABLE fleet_alerts (
            alert_key text PRIMARY KEY,
            kind text NOT NULL,
            subject text NOT NULL,
            state text NOT NULL CHECK (state IN ('firing', 'resolved')),
            since timestamptz NOT NULL,
            updated timestamptz NOT NULL,
            payload jsonb NOT NULL
        )
        """,
        // The outbox: a row per (notice, sink), taken by one hub at a time with FOR UPDATE SKIP LOCKED and marked
        // delivered only after the sink acknowledged it.
        """
        CREATE TABLE fleet_alert_outbox (
            id bigserial PRIMARY KEY,
            created timestamptz NOT NULL DEFAULT now(),
            alert_key text NOT NULL,
            kind text NOT NULL,
            sink text NOT NULL,
            payload jsonb NOT NULL,
            idempotency_key text NOT NULL UNIQUE,
            state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt timestamptz NOT NULL DEFAULT now(),
            last_error text,
            delivered timestamptz
        )
        """,
        "CREATE INDEX fleet_alert_outbox_due ON fleet_alert_outbox (next_attempt) WHERE state = 'pending'",
        // The key every agent last agreed an endpoint serves: a new unanimous key is a rotation.
        """
        CREATE TABLE fleet_endpoint_keys (
            endpoint text PRIMARY KEY,
            spki text NOT NULL,
            issuer text,
            since timestamptz NOT NULL
        )
        """,
        "GRANT SELECT, INSERT, UPDATE, DELETE ON fleet_alerts, fleet_alert_outbox, fleet_endpoint_keys TO netvigil_hub",
        "GRANT USAGE ON SEQUENCE fleet_alert_outbox_id_seq TO netvigil_hub",
        "GRANT SELECT ON fleet_alerts, fleet_alert_outbox, fleet_endpoint_keys TO netvigil_reader",
        // A stored `details` text as JSON, or NULL when it is not JSON: an agent writes its own rows, and one bad row
        // must not make every export of its range fail.
        """
        CREATE FUNCTION netvigil_json_or_null(value text) RETURNS json
        LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
        BEGIN
            RETURN value::json;
        EXCEPTION WHEN others THEN
            RETURN NULL;
        END $$
        """,
        "REVOKE ALL ON FUNCTION netvigil_json_or_null(text) FROM PUBLIC",
        "GRANT EXECUTE ON FUNCTION netvigil_json_or_null(text) TO netvigil_reader",
    ]

    /// Version 3: which transaction last wrote each latest result (`written`, set by a trigger whatever the writing
    /// agent's version), so that a hub reads only the rows written since its previous read (``FleetSnapshotMirror``)
    /// instead of every agent's every endpoint on each request. Rows from before version 3 keep NULL: a full read has them.
    static let version3: [String] = [
        "ALTER TABLE latest_results ADD COLUMN written xid8",
        """
        CREATE FUNCTION netvigil_mark_written() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog AS $$
        BEGIN
            NEW.written := pg_current_xact_id();
            RETURN NEW;
        END $$
        """,
        """
        CREATE TRIGGER latest_results_written BEFORE INSERT OR UPDATE ON latest_results
            FOR EACH ROW EXECUTE FUNCTION netvigil_mark_written()
        """,
    ]

    /// Row-level security: an agent sees and writes only rows whose `agent` is its login role; a reader sees all.
    static func rowLevelSecurity(on tables: [String]) -> [String] {
        tables.flatMap { table in
            [
                "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
                """
                CREATE POLICY agent_own_rows ON \(table) TO netvigil_agent
                    USING (agent = current_user) WITH CHECK (agent = current_user)
                """,
                "CREATE POLICY reader_all_rows ON \(table) FOR SELECT TO netvigil_reader USING (true)",
            ]
        }
    }
}
