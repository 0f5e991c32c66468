extension AgentMetrics {
    /// The fleet shipper's series (`fleet:`, docs/fleet.md): how far the central PostgreSQL is behind this agent.
    static let fleetCatalogue: [MetricDescription] = [
        MetricDescription(
            name: FleetName.lag, kind: .gauge, labels: [],
            help: "Age of the oldest local row PostgreSQL does not hold yet, in seconds; 0 when everything is shipped."),
        MetricDescription(
            name: FleetName.backlog, kind: .gauge, labels: ["stream"],
            help: "Local rows not shipped to PostgreSQL yet, by stream (probe_results, reachability_events, alerts)."),
        MetricDescription(
            name: FleetName.lastSuccess, kind: .gauge, labels: [],
            help: "When a batch or heartbeat last reached PostgreSQL, as a Unix time in seconds; absent before the first."),
        MetricDescription(
            name: FleetName.shippedRows, kind: .counter, labels: ["stream"],
            help: "Rows PostgreSQL acknowledged (duplicates of a retried batch included), by stream."),
        MetricDescription(
            name: FleetName.errors, kind: .counter, labels: ["kind"],
            help: "Failed shipping attempts by kind: connect, tls, authentication, permission, server, local_store."),
        MetricDescription(
            name: FleetName.expiredRows, kind: .counter, labels: ["stream"],
            help: "Rows local retention deleted before they were shipped: missing from the central database."),
    ]

    /// The fleet series' names.
    public enum FleetName {
        public static let lag = "netvigil_fleet_shipping_lag_seconds"
        public static let backlog = "netvigil_fleet_backlog_rows"
        public static let lastSuccess = "netvigil_fleet_last_success_timestamp_seconds"
        public static let shippedRows = "netvigil_fleet_shipped_rows_total"
        public static let errors = "netvigil_fleet_errors_total"
        public static let expiredRows = "netvigil_fleet_expired_rows_total"
    }

    /// Error kinds of `netvigil_fleet_errors_total`, exported at 0 from the start.
    public static let fleetErrorKinds = ["connect", "tls", "authentication", "permission", "server", "local_store"]

    /// Creates the fleet series at their starting values (a daemon with `fleet:`).
    public func fleetStarted(streams: [String]) {
        for kind in Self.fleetErrorKinds { increment(FleetName.errors, [("kind", kind)], by: 0) }
        for stream in streams {
            increment(FleetName.shippedRows, [("stream", stream)], by: 0)
            increment(FleetName.expiredRows, [("stream", stream)], by: 0)
        }
    }

    /// The shipper's view after a round: lag in seconds and unshipped rows per stream.
    public func fleetProgress(lagSeconds: Double, backlog: [String: Int]) {
        setGauge(FleetName.lag, [], lagSeconds)
        for (stream, rows) in backlog { setGauge(FleetName.backlog, [("stream", stream)], Double(rows)) }
    }

    /// PostgreSQL acknowledged `rows` of `stream` (0 for a heartbeat) at `unixSeconds`.
    public func fleetShipped(stream: String?, rows: Int, unixSeconds: Double) {
        if let stream { increment(FleetName.shippedRows, [("stream", stream)], by: rows) }
        setGauge(FleetName.lastSuccess, [], unixSeconds)
    }

    /// One failed attempt of `kind` (one of ``fleetErrorKinds``).
    public func fleetError(kind: String) {
        increment(FleetName.errors, [("kind", kind)], by: 1)
    }

    /// Rows of `stream` retention deleted before they were shipped.
    public func fleetExpired(stream: String, rows: Int) {
        increment(FleetName.expiredRows, [("stream", stream)], by: rows)
    }
}
