extension AgentMetrics {
    /// The exported metric names.
    public enum Name {
        public static let probeSuccess = "netvigil_probe_success"
        public static let probeSkipped = "netvigil_probe_skipped"
        public static let probeDuration = "netvigil_probe_duration_seconds"
        public static let probeHTTPStatusCode = "netvigil_probe_http_status_code"
        public static let probeHTTPVersion = "netvigil_probe_http_version"
        public static let tlsTrusted = "netvigil_tls_trusted"
        public static let tlsPinMatch = "netvigil_tls_pin_match"
        public static let tlsEarliestCertExpiry = "netvigil_tls_earliest_cert_expiry_timestamp_seconds"
        public static let tlsServedKeyInfo = "netvigil_tls_served_key_info"
        public static let tlsFindings = "netvigil_tls_findings"
        public static let probesTotal = "netvigil_probes_total"
        public static let addressProbeSuccess = "netvigil_address_probe_success"
        public static let addressTLSTrusted = "netvigil_address_tls_trusted"
        public static let addressTLSPinMatch = "netvigil_address_tls_pin_match"
        public static let reachabilityStatus = "netvigil_reachability_status"
        public static let reachabilityFlag = "netvigil_reachability_flag"
        public static let netlinkResyncsTotal = "netvigil_netlink_resyncs_total"
        public static let alertsPending = "netvigil_alerts_pending"
        public static let alertsSentTotal = "netvigil_alerts_sent_total"
        public static let buildInfo = "netvigil_build_info"
        public static let configLastReloadSuccessful = "netvigil_config_last_reload_successful"
        public static let configLastReloadSuccessTimestamp = "netvigil_config_last_reload_success_timestamp_seconds"
        public static let configReloadRunning = "netvigil_config_reload_running_seconds"
        public static let processResidentMemory = "process_resident_memory_bytes"
        public static let processCPUSeconds = "process_cpu_seconds_total"
        public static let processOpenFDs = "process_open_fds"
        public static let processMaxFDs = "process_max_fds"
        public static let processStartTime = "process_start_time_seconds"
        public static let healthy = "netvigil_healthy"
        public static let schedulerStartLateness = "netvigil_scheduler_start_lateness_seconds"
        public static let schedulerSkippedTicksTotal = "netvigil_scheduler_skipped_ticks_total"
        public static let storeWritable = "netvigil_store_writable"
        public static let storeQueuedRows = "netvigil_store_queued_rows"
        public static let storeDroppedRowsTotal = "netvigil_store_dropped_rows_total"
        public static let resourceExhaustedTotal = "netvigil_resource_exhausted_total"
        public static let revocationFetchesRefusedTotal = "netvigil_revocation_fetches_refused_total"
        public static let eventSubscribers = "netvigil_feed_event_subscribers"
        public static let eventSubscribersRefusedTotal = "netvigil_feed_event_subscribers_refused_total"
    }

    /// Every metric the daemon exports, in the order of the Metrics table in docs/feed.md.
    public static let catalogue: [MetricDescription] = [
        MetricDescription(
            name: Name.probeSuccess, kind: .gauge, labels: ["target"],
            help: "1 if the target's last probe succeeded, 0 if it failed; a skipped probe keeps the previous value."),
        MetricDescription(
            name: Name.probeSkipped, kind: .gauge, labels: ["target"],
            help: "1 if the target's last probe was skipped because its host was NotReachable, else 0."),
        MetricDescription(
            name: Name.probeDuration, kind: .gauge, labels: ["target", "phase"],
            help: "Duration of each phase of the target's last probe that ran, in seconds (0 for a phase that did not run)."),
        MetricDescription(
            name: Name.probeHTTPStatusCode, kind: .gauge, labels: ["target"],
            help: "HTTP status code of the last probe's final response, 0 when no response arrived."),
        MetricDescription(
            name: Name.probeHTTPVersion, kind: .gauge, labels: ["target"],
            help: "HTTP version of the last probe's final response (1.1, 2), 0 when no response arrived."),
        MetricDescription(
            name: Name.tlsTrusted, kind: .gauge, labels: ["target"],
            help: "1 if the target's TLS policy trusted the served chain, 0 if not; absent when the last probe had no TLS verdict."),
        MetricDescription(
            name: Name.tlsPinMatch, kind: .gauge, labels: ["target"],
            help: "1 if a pin matched, 0 on a mismatch (report-only included), -1 when not pinned or the pins expired; absent without a pin verdict."),
        MetricDescription(
            name: Name.tlsEarliestCertExpiry, kind: .gauge, labels: ["target"],
            help: "Earliest notAfter of the certificates the server sent in the last probe, as a Unix time in seconds."),
        MetricDescription(
            name: Name.tlsServedKeyInfo, kind: .gauge, labels: ["target", "pin"],
            help: "Always 1; pin is the SPKI pin (sha256/...) of the leaf key the server sent in the last probe that got a chain."),
        MetricDescription(
            name: Name.tlsFindings, kind: .gauge, labels: ["target"],
            help: "Baseline Requirements findings of the chain the server sent in the last probe (warnings; the verdict is unchanged)."),
        MetricDescription(
            name: Name.probesTotal, kind: .counter, labels: ["target", "outcome"],
            help: "Probes finished, by outcome (ok, failed, skipped)."),
    ] + addressCatalogue + [
        MetricDescription(
            name: Name.reachabilityStatus, kind: .gauge, labels: ["target"],
            help: "AFNetworking reachability status: -1 Unknown, 0 NotReachable, 1 ReachableViaWWAN, 2 ReachableViaWiFi."),
        MetricDescription(
            name: Name.reachabilityFlag, kind: .gauge, labels: ["target", "flag"],
            help: "1 if the SCNetworkReachability-style flag is set for the reachability target, else 0."),
        MetricDescription(
            name: Name.netlinkResyncsTotal, kind: .counter, labels: [],
            help: "Netlink overruns (ENOBUFS) that forced a full resynchronization of the reachability mirror."),
        MetricDescription(
            name: Name.alertsPending, kind: .gauge, labels: [],
            help: "Alerts in the durable outbox that are not delivered yet."),
        MetricDescription(
            name: Name.alertsSentTotal, kind: .counter, labels: ["sink", "kind"],
            help: "Alerts delivered, by sink and alert kind."),
        MetricDescription(
            name: Name.buildInfo, kind: .gauge, labels: ["version"],
            help: "Always 1; the version label is the running netvigil version."),
        MetricDescription(
            name: Name.configLastReloadSuccessful, kind: .gauge, labels: [],
            help: "1 if the last configuration load (start or SIGHUP) succeeded, 0 if the file was refused and the previous configuration runs on."),
        MetricDescription(
            name: Name.configLastReloadSuccessTimestamp, kind: .gauge, labels: [],
            help: "Time of the last successful configuration load, as a Unix time in seconds."),
        MetricDescription(
            name: Name.configReloadRunning, kind: .gauge, labels: [],
            help: "How long the configuration reload in progress has run, in seconds; 0 when none runs. Reloads run one at a time: one stuck past 30 s also makes /healthz answer 503."),
        MetricDescription(
            name: Name.processResidentMemory, kind: .gauge, labels: [],
            help: "Resident set size of the netvigil process, in bytes."),
        MetricDescription(
            name: Name.processCPUSeconds, kind: .counter, labels: [],
            help: "CPU time the netvigil process has used, user and system, in seconds."),
        MetricDescription(
            name: Name.processOpenFDs, kind: .gauge, labels: [],
            help: "File descriptors the netvigil process has open."),
        MetricDescription(
            name: Name.processMaxFDs, kind: .gauge, labels: [],
            help: "The netvigil process's open-file limit (soft RLIMIT_NOFILE); absent when unlimited."),
        MetricDescription(
            name: Name.processStartTime, kind: .gauge, labels: [],
            help: "When the netvigil process started, as a Unix time in seconds."),
        MetricDescription(
            name: Name.healthy, kind: .gauge, labels: [],
            help: "1 while the probe pipeline is live (due probes start, the store accepts writes), 0 when /healthz says 503."),
        MetricDescription(
            name: Name.schedulerStartLateness, kind: .gauge, labels: ["percentile"],
            help: "How late probes started against their schedule over the last 10000 starts, in seconds, at percentile 50, 99 and 100 (the largest); absent before the first probe."),
        MetricDescription(
            name: Name.schedulerSkippedTicksTotal, kind: .counter, labels: [],
            help: "Ticks dropped because the target's previous probe was still running when they came."),
        MetricDescription(
            name: Name.storeWritable, kind: .gauge, labels: [],
            help: "1 while the store commits writes, 0 while writes fail (disk full, read-only); results wait in memory."),
        MetricDescription(
            name: Name.storeQueuedRows, kind: .gauge, labels: [],
            help: "Rows accepted but not yet committed to the store."),
        MetricDescription(
            name: Name.storeDroppedRowsTotal, kind: .counter, labels: [],
            help: "Probe and reachability rows dropped because the in-memory queue overflowed while the store could not be written."),
        MetricDescription(
            name: Name.resourceExhaustedTotal, kind: .counter, labels: [],
            help: "Probes that failed because the agent ran out of descriptors or memory (EMFILE, ENFILE, ENOMEM); never a target_down."),
        MetricDescription(
            name: Name.revocationFetchesRefusedTotal, kind: .counter, labels: [],
            help: "Revocation fetches (CRL, OCSP) refused because they would connect to a link-local or cloud-metadata address or to the daemon's own feed."),
        MetricDescription(
            name: Name.eventSubscribers, kind: .gauge, labels: [],
            help: "Open /v1/events streams."),
        MetricDescription(
            name: Name.eventSubscribersRefusedTotal, kind: .counter, labels: [],
            help: "/v1/events requests answered 503 because feed.max_event_subscribers streams were open."),
    ] + fleetCatalogue

    /// `# HELP` text by metric name, for a Prometheus metrics factory.
    public static var helpTexts: [String: String] {
        Dictionary(uniqueKeysWithValues: catalogue.map { ($0.name, $0.help) })
    }
}
