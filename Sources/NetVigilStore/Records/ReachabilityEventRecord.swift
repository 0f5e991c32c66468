/// One reachability change as stored in `reachability_events`.
public struct ReachabilityEventRecord: Sendable, Equatable, Codable {
    public var time: Timestamp
    /// `default`, an address or a host name.
    public var target: String
    /// `Unknown`, `NotReachable`, `ReachableViaWWAN` or `ReachableViaWiFi`.
    public var status: String
    /// AFNetworking raw value: -1, 0, 1, 2.
    public var statusCode: Int
    /// SCNetworkReachability-style flag bits.
    public var flags: Int64
    /// Flag names, in bit order.
    public var flagNames: [String]
    public var interface: String?
    public var interfaceKind: String?
    public var gateway: String?
    public var source: String?
    /// `ipv4` or `ipv6`.
    public var family: String?

    public init(time: Timestamp, target: String, status: String, statusCode: Int, flags: Int64,
                flagNames: [String], interface: String? = nil, interfaceKind: String? = nil,
                gateway: String? = nil, source: String? = nil, family: String? = nil) {
        self.time = time
        self.target = target
        self.status = status
        self.statusCode = statusCode
        self.flags = flags
        self.flagNames = flagNames
        self.interface = interface
        self.interfaceKind = interfaceKind
        self.gateway = gateway
        self.source = source
        self.family = family
    }
}
