import NetVigilStore

/// The body of `GET /v1/status`.
public struct StatusReport: Sendable, Codable {
    public var version: String
    public var startedAt: Timestamp
    public var uptimeSeconds: Double
    public var store: StoreStatistics

    enum CodingKeys: String, CodingKey {
        case version
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
        case store
    }
}

extension StoreStatistics {
    enum CodingKeys: String, CodingKey {
        case path
        case sizeBytes = "size_bytes"
        case probeResults = "probe_results"
        case certificates
        case reachabilityEvents = "reachability_events"
        case alerts
        case alertsPending = "alerts_pending"
        case oldest
        case newest
    }
}
