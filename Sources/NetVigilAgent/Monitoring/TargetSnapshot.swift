import NetVigilProbeModel
import NetVigilStore

/// One probe target as `/v1/status` and `netvigil status` show it.
public struct TargetSnapshot: Sendable, Codable, Equatable {
    /// `pending` (not probed yet), `up`, `down` or `skipped` (host not reachable).
    public enum Status: String, Sendable, Codable {
        case pending, up, down, skipped
    }

    /// Share of successful probes (skipped ones excluded); nil without results in the window.
    public struct Uptime: Sendable, Codable, Equatable {
        public var lastHour: Double?
        public var lastDay: Double?
        public var lastWeek: Double?

        enum CodingKeys: String, CodingKey {
            case lastHour = "1h", lastDay = "24h", lastWeek = "7d"
        }
    }

    /// The last result, summarised.
    public struct LastResult: Sendable, Codable, Equatable {
        public var time: Timestamp
        public var outcome: ProbeOutcome
        public var errorKind: String?
        public var errorMessage: String?
        public var httpStatus: Int?
        /// `HTTP/1.1`, `HTTP/2`, ... of the final response.
        public var httpVersion: String?
        public var timings: PhaseTimings
        public var tlsVersion: String?
        public var trustVerdict: String?
        public var pinVerdict: String?
        public var reachabilityStatus: String?
        public var resolvedAddress: String?
        /// Earliest `notAfter` of the served chain.
        public var certificateExpiry: Timestamp?
        /// Whole days from the result to `certificateExpiry` (negative when expired).
        public var certificateDaysLeft: Int?
        /// Baseline Requirements findings of the served chain (warnings); absent without a trust verdict.
        public var findings: [TrustFinding]?

        enum CodingKeys: String, CodingKey {
            case time, outcome, timings
            case errorKind = "error_kind", errorMessage = "error_message", httpStatus = "http_status"
            case httpVersion = "http_version"
            case tlsVersion = "tls_version", trustVerdict = "trust_verdict", pinVerdict = "pin_verdict"
            case reachabilityStatus = "reachability_status", resolvedAddress = "resolved_address"
            case certificateExpiry = "certificate_expiry", certificateDaysLeft = "certificate_days_left"
            case findings
        }
    }

    public var name: String
    public var url: String
    /// The `endpoint` label of the target's series (the URL without credentials, query or fragment).
    public var endpoint: String?
    /// The target's configured labels (top level merged with its own).
    public var labels: TargetLabels?
    public var intervalSeconds: Double
    public var status: Status
    public var lastResult: LastResult?
    /// Time of the last result that was not skipped.
    public var lastProbeAt: Timestamp?
    public var consecutiveFailures: Int
    public var firingAlerts: [FiringAlert]
    public var uptime: Uptime
    /// `addresses: all`: each address of the last tick (absent for one-address targets).
    public var addresses: [AddressStatus]? = nil

    enum CodingKeys: String, CodingKey {
        case name, url, endpoint, labels, status, uptime, addresses
        case intervalSeconds = "interval_seconds", lastResult = "last_result", lastProbeAt = "last_probe_at"
        case consecutiveFailures = "consecutive_failures", firingAlerts = "firing_alerts"
    }
}

extension TargetSnapshot.LastResult {
    /// Summarises a stored result.
    init(_ record: ProbeRecord) {
        time = record.time
        outcome = record.outcome
        errorKind = record.errorKind?.rawValue
        errorMessage = record.errorMessage
        httpStatus = record.httpStatus
        httpVersion = record.httpVersion
        timings = record.timings
        tlsVersion = record.tlsVersion
        trustVerdict = record.trustVerdict?.description
        pinVerdict = record.pinVerdict?.rawValue
        reachabilityStatus = record.reachabilityStatus
        resolvedAddress = record.resolvedAddress
        (certificateExpiry, certificateDaysLeft) = TargetSnapshot.certificateExpiry(of: record)
        findings = record.findings
    }
}

extension TargetSnapshot {
    /// The earliest `notAfter` of `record`'s served chain and the whole days from the result to it.
    static func certificateExpiry(of record: ProbeRecord) -> (expiry: Timestamp?, daysLeft: Int?) {
        let expiry = record.servedChain.map(\.notAfter).min()
        return (expiry, expiry.map { Int(($0.milliseconds - record.time.milliseconds) / 86_400_000) })
    }
}
