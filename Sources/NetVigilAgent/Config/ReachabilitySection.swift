import NetVigilReachability

/// `reachability:` — what the netlink watcher evaluates besides `default`.
public struct ReachabilitySection: ConfigSection, Equatable {
    public static let key = "reachability"
    public static let allowedKeys = ["targets", "resolve_interval", "captive_portal"]

    /// Watched targets; `default` is always included (first).
    public var targets: [ReachabilityTarget]
    /// How often host names are re-resolved (also on every routing change).
    public var resolveInterval: Duration
    /// The captive-portal check, when configured.
    public var captivePortal: CaptivePortalSettings?

    public init() {
        targets = [.default]
        resolveInterval = .seconds(60)
        captivePortal = nil
    }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let list = mapping["targets"] {
            for item in try list.sequence() {
                let text = try item.nonEmptyString()
                let target: ReachabilityTarget
                do {
                    target = try ReachabilityTarget(parsing: text)
                } catch {
                    let reason = if case .invalidTarget(_, let reason) = error { reason } else { "invalid" }
                    throw item.error("expected default, an IP address or a host name (\(reason))")
                }
                if !targets.contains(target) { targets.append(target) }
            }
        }
        if let value = mapping["resolve_interval"] { resolveInterval = try value.duration(minimum: .seconds(1)) }
        if let value = mapping["captive_portal"] { captivePortal = try CaptivePortalSettings(reading: value) }
    }
}
