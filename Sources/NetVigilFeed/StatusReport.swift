import NetVigilAgent
import NetVigilReachability
import NetVigilStore

/// The body of `GET /v1/status`.
public struct StatusReport: Sendable, Codable {
    public var version: String
    public var startedAt: Timestamp
    public var uptimeSeconds: Double
    public var store: StoreStatistics
    /// `default` and each configured reachability target, as `netvigil reachability --json` prints them.
    public var reachability: [ReachabilityEvaluation]
    /// The captive-portal check's verdict (`portal` means `default` is NotReachable with interventionRequired).
    public var captivePortal: CaptivePortalChecker.Verdict?
    /// Every probe target: last result, failure streak, firing alerts, uptime ratios.
    public var targets: [TargetSnapshot]
    /// The daemon's liveness, as `/healthz` judges it; nil when the feed runs without a daemon.
    public var health: Health?
    /// What each position of a target holds in the rows view (``TargetRow/columns``); nil (left out) otherwise.
    public var targetColumns: [String]? = nil

    /// `{"healthy": true, "problems": []}`, or false with one line per problem.
    public struct Health: Sendable, Codable, Equatable {
        public var healthy: Bool
        public var problems: [String]

        public init(_ report: DaemonHealth.Report) {
            healthy = report.isHealthy
            problems = report.problems
        }

        /// The public status document's: ``DaemonHealth/Report/publicProblems``, so no store path reaches it.
        init(public report: DaemonHealth.Report) {
            healthy = report.isHealthy
            problems = report.publicProblems
        }
    }

    enum CodingKeys: String, CodingKey {
        case version
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
        case store
        case reachability
        case targets
        case captivePortal = "captive_portal"
        case health
        case targetColumns = "target_columns"
    }
}
