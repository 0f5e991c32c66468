/// SCNetworkReachability-style flags with Apple's bit values (`kSCNetworkReachabilityFlags*`).
///
/// On Linux they are computed from the kernel's answer to `RTM_GETROUTE` for the target and the link mirror:
/// see `docs/reachability.md` for each flag's Linux meaning. `connectionOnTraffic` and `connectionOnDemand`
/// are never set on Linux; they exist so the AFNetworking status formula can be applied verbatim.
public struct ReachabilityFlags: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The output interface is point-to-point, a tunnel/VPN, or WWAN (`kSCNetworkReachabilityFlagsTransientConnection`).
    public static let transientConnection = ReachabilityFlags(rawValue: 1 << 0)
    /// A unicast or local route exists whose interface is up with carrier and has a usable source address.
    public static let reachable = ReachabilityFlags(rawValue: 1 << 1)
    /// A route exists but its interface is up without carrier, dormant, or its lower layer is down (route linkdown).
    public static let connectionRequired = ReachabilityFlags(rawValue: 1 << 2)
    /// Never set on Linux.
    public static let connectionOnTraffic = ReachabilityFlags(rawValue: 1 << 3)
    /// Set from outside (captive-portal check) with `ReachabilityMonitor.setInterventionRequired(_:for:)`.
    public static let interventionRequired = ReachabilityFlags(rawValue: 1 << 4)
    /// Never set on Linux.
    public static let connectionOnDemand = ReachabilityFlags(rawValue: 1 << 5)
    /// The route is `RTN_LOCAL`: the target is an address of this host.
    public static let isLocalAddress = ReachabilityFlags(rawValue: 1 << 16)
    /// The target is on-link: the route has no gateway.
    public static let isDirect = ReachabilityFlags(rawValue: 1 << 17)
    /// The output interface's kind is `wwan`.
    public static let isWWAN = ReachabilityFlags(rawValue: 1 << 18)

    /// Every flag with its Apple name, in bit order.
    public static let named: [(flag: ReachabilityFlags, name: String)] = [
        (.transientConnection, "transientConnection"),
        (.reachable, "reachable"),
        (.connectionRequired, "connectionRequired"),
        (.connectionOnTraffic, "connectionOnTraffic"),
        (.interventionRequired, "interventionRequired"),
        (.connectionOnDemand, "connectionOnDemand"),
        (.isLocalAddress, "isLocalAddress"),
        (.isDirect, "isDirect"),
        (.isWWAN, "isWWAN"),
    ]

    /// The names of the flags that are set, in bit order.
    public var names: [String] {
        Self.named.filter { contains($0.flag) }.map(\.name)
    }

    /// Flags from names as produced by `names`; `nil` if a name is unknown.
    public init?(names: [String]) {
        var flags = ReachabilityFlags()
        for name in names {
            guard let entry = Self.named.first(where: { $0.name == name }) else { return nil }
            flags.insert(entry.flag)
        }
        self = flags
    }

    /// Comma-separated names, or `none`.
    public var description: String {
        let list = names
        return list.isEmpty ? "none" : list.joined(separator: ",")
    }
}
