/// AFNetworkReachabilityStatus, with AFNetworking's raw values and names.
public enum ReachabilityStatus: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Before the first evaluation, and while netlink is unavailable.
    case unknown = -1
    case notReachable = 0
    case reachableViaWWAN = 1
    /// AFNetworking's name for "reachable, not cellular" (ethernet included).
    case reachableViaWiFi = 2

    /// Exactly `AFNetworkReachabilityStatusForFlags`:
    /// usable = reachable && (!connectionRequired || ((connectionOnDemand || connectionOnTraffic) && !interventionRequired));
    /// not usable → NotReachable, isWWAN → ReachableViaWWAN, else ReachableViaWiFi.
    public init(flags: ReachabilityFlags) {
        let isReachable = flags.contains(.reachable)
        let needsConnection = flags.contains(.connectionRequired)
        let canConnectAutomatically = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
        let canConnectWithoutUserInteraction = canConnectAutomatically && !flags.contains(.interventionRequired)
        let isNetworkReachable = isReachable && (!needsConnection || canConnectWithoutUserInteraction)
        if !isNetworkReachable {
            self = .notReachable
        } else if flags.contains(.isWWAN) {
            self = .reachableViaWWAN
        } else {
            self = .reachableViaWiFi
        }
    }

    /// AFNetworking's name: `Unknown`, `NotReachable`, `ReachableViaWWAN`, `ReachableViaWiFi`.
    public var name: String {
        switch self {
        case .unknown: "Unknown"
        case .notReachable: "NotReachable"
        case .reachableViaWWAN: "ReachableViaWWAN"
        case .reachableViaWiFi: "ReachableViaWiFi"
        }
    }

    /// The status for an AFNetworking name.
    public init?(name: String) {
        guard let status = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = status
    }

    /// True for `ReachableViaWWAN` and `ReachableViaWiFi`.
    public var isReachable: Bool { self == .reachableViaWWAN || self == .reachableViaWiFi }

    public var description: String { name }
}
