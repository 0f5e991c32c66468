import NetVigilAgent
import NetVigilReachability
import NetVigilStore

/// What the feed reads from the running daemon.
public struct FeedState: Sendable {
    public let store: Store
    public let startedAt: Timestamp
    public let version: String
    /// The daemon's reachability monitor; nil when the feed runs without one (tests).
    public let reachability: ReachabilityMonitor?
    /// What `GET /metrics` serves; nil when the feed runs without metrics (the route answers 404).
    public let metrics: FeedMetrics?
    /// The daemon's event hub, streamed by `GET /v1/events`; nil when the feed runs without one (the route answers 503).
    public let events: EventHub?
    /// Probe targets' in-memory state; nil when the feed runs without a scheduler.
    public let targets: TargetStates?
    /// The alert rules' state (firing alerts); nil without alerting.
    public let alerts: AlertEngine?
    /// The captive-portal check; nil when the feed runs without one.
    public let portal: CaptivePortalChecker?
    /// The probe pipeline's liveness for `/healthz`; nil when the feed runs without a daemon (only the store is checked).
    public let health: DaemonHealth?
    /// How long one `/v1/export` response may run before it is cut off (default 10 minutes).
    public let exportTimeLimit: Duration
    /// Each target's JSON as `GET /v1/status` last sent it.
    let statusFragments = TargetFragmentCache()
    /// Each target's JSON as `GET /v1/status?view=brief` last sent it.
    let briefStatusFragments = TargetFragmentCache(BriefTargetSnapshot.init)
    /// Each target's JSON as `GET /v1/status?view=rows` last sent it.
    let rowStatusFragments = TargetFragmentCache(TargetRow.init)

    public init(store: Store, startedAt: Timestamp = .now(), version: String = NetVigilVersion.current,
                reachability: ReachabilityMonitor? = nil, metrics: FeedMetrics? = nil, events: EventHub? = nil,
                targets: TargetStates? = nil, alerts: AlertEngine? = nil, portal: CaptivePortalChecker? = nil,
                health: DaemonHealth? = nil, exportTimeLimit: Duration = .seconds(600)) {
        self.store = store
        self.startedAt = startedAt
        self.version = version
        self.reachability = reachability
        self.metrics = metrics
        self.events = events
        self.targets = targets
        self.alerts = alerts
        self.portal = portal
        self.health = health
        self.exportTimeLimit = exportTimeLimit
    }

    /// Whether a probe target of this name is configured.
    func hasTarget(_ name: String) -> Bool {
        targets?.contains(name) ?? false
    }

    /// One probe target with its firing alerts, nil when not configured.
    func targetSnapshot(_ name: String, now: Timestamp = .now()) -> TargetSnapshot? {
        targets?.snapshot(name, now: now, firing: alerts?.firing(target: name) ?? [])
    }

    /// Every probe target with its firing alerts, in configuration order (uptime ratios nil without `uptime`).
    func targetSnapshots(now: Timestamp = .now(), uptime: Bool = true) -> [TargetSnapshot] {
        targetSources(now: now, uptime: uptime).map { $0.snapshot() }
    }

    /// What ``targetSnapshots(now:uptime:)`` would build, not built yet.
    func targetSources(now: Timestamp = .now(), uptime: Bool = true) -> [TargetStates.SnapshotSource] {
        guard let targets else { return [] }
        let firing = Dictionary(grouping: alerts?.firing() ?? [], by: \.target)
        return targets.snapshotSources(now: now, firing: firing, uptime: uptime)
    }

    /// Current evaluation of every watched target, `Unknown` before the first evaluation.
    func reachabilitySnapshot() async -> [ReachabilityEvaluation] {
        guard let monitor = reachability else { return [] }
        var result: [ReachabilityEvaluation] = []
        for target in await monitor.targets {
            result.append(await monitor.current(target) ?? .unknown(target))
        }
        return result
    }
}
