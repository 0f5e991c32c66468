import Foundation

/// One evaluation of a target: AFNetworking's status and flags plus the detail AFNetworking never had.
///
/// Encodes to the `--json` line: `{"time","target","status","status_code","flags","flags_raw","interface",
/// "interface_kind","gateway","source","family","table","address"}` (absent values are `null`).
public struct ReachabilityEvaluation: Sendable, Hashable, Codable {
    public var target: ReachabilityTarget
    public var status: ReachabilityStatus
    public var flags: ReachabilityFlags
    /// Output interface of the route, e.g. `eth0`.
    public var interface: String?
    public var interfaceKind: InterfaceKind?
    /// Next hop, `nil` for on-link routes.
    public var gateway: String?
    /// Source address the kernel would use.
    public var source: String?
    public var family: IPAddress.Family?
    /// Routing table the route came from (254 = main).
    public var table: UInt32?
    /// The address that was evaluated (the target itself, or the chosen resolved address of a host name).
    public var address: String?
    public var time: Date

    public init(
        target: ReachabilityTarget, flags: ReachabilityFlags, interface: String? = nil,
        interfaceKind: InterfaceKind? = nil, gateway: String? = nil, source: String? = nil,
        family: IPAddress.Family? = nil, table: UInt32? = nil, address: String? = nil, time: Date = Date()
    ) {
        self.target = target
        self.flags = flags
        self.status = ReachabilityStatus(flags: flags)
        self.interface = interface
        self.interfaceKind = interfaceKind
        self.gateway = gateway
        self.source = source
        self.family = family
        self.table = table
        self.address = address
        self.time = time
    }

    /// The `Unknown` evaluation: before the first evaluation and while netlink is unavailable.
    public static func unknown(_ target: ReachabilityTarget, time: Date = Date()) -> ReachabilityEvaluation {
        var evaluation = ReachabilityEvaluation(target: target, flags: [], time: time)
        evaluation.status = .unknown
        return evaluation
    }

    /// Same status, flags and detail (time ignored).
    public func hasSameState(as other: ReachabilityEvaluation) -> Bool {
        var copy = other
        copy.time = time
        return copy == self
    }

    enum CodingKeys: String, CodingKey {
        case time, target, status, statusCode = "status_code", flags, flagsRaw = "flags_raw", interface
        case interfaceKind = "interface_kind", gateway, source, family, table, address
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let timeText = try c.decode(String.self, forKey: .time)
        let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timeText))
            ?? (try? Date.ISO8601FormatStyle().parse(timeText))
        guard let time = parsed else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: c, debugDescription: "not an ISO 8601 time")
        }
        self.time = time
        target = try c.decode(ReachabilityTarget.self, forKey: .target)
        let name = try c.decode(String.self, forKey: .status)
        guard let status = ReachabilityStatus(name: name) else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription: "unknown status \(name)")
        }
        self.status = status
        flags = ReachabilityFlags(rawValue: try c.decode(UInt32.self, forKey: .flagsRaw))
        interface = try c.decodeIfPresent(String.self, forKey: .interface)
        interfaceKind = try c.decodeIfPresent(InterfaceKind.self, forKey: .interfaceKind)
        gateway = try c.decodeIfPresent(String.self, forKey: .gateway)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        if let familyName = try c.decodeIfPresent(String.self, forKey: .family) {
            family = familyName == "ipv4" ? .ipv4 : familyName == "ipv6" ? .ipv6 : nil
        }
        table = try c.decodeIfPresent(UInt32.self, forKey: .table)
        address = try c.decodeIfPresent(String.self, forKey: .address)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), forKey: .time)
        try c.encode(target, forKey: .target)
        try c.encode(status.name, forKey: .status)
        try c.encode(status.rawValue, forKey: .statusCode)
        try c.encode(flags.names, forKey: .flags)
        try c.encode(flags.rawValue, forKey: .flagsRaw)
        try c.encode(interface, forKey: .interface)
        try c.encode(interfaceKind, forKey: .interfaceKind)
        try c.encode(gateway, forKey: .gateway)
        try c.encode(source, forKey: .source)
        try c.encode(family?.description, forKey: .family)
        try c.encode(table, forKey: .table)
        try c.encode(address, forKey: .address)
    }

    /// One JSON object on one line (keys sorted), as printed by `netvigil reachability --json`.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
