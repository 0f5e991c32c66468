import CNetlink

/// An interface address as mirrored from `RTM_NEWADDR`.
public struct AddressInfo: Hashable, Sendable {
    public var index: Int32
    public var address: IPAddress
    public var prefixLength: UInt8
    /// `RT_SCOPE_*` (0 universe, 200 site, 253 link, 254 host).
    public var scope: UInt8
    /// `IFA_F_*`.
    public var flags: UInt32

    public init(index: Int32, address: IPAddress, prefixLength: UInt8, scope: UInt8 = 0, flags: UInt32 = 0) {
        self.index = index
        self.address = address
        self.prefixLength = prefixLength
        self.scope = scope
        self.flags = flags
    }

    /// Usable as a source: not tentative (DAD still running) and DAD did not fail.
    public var isUsable: Bool { flags & (CNL_IFA_F_TENTATIVE | CNL_IFA_F_DADFAILED) == 0 }

    struct Key: Hashable, Sendable {
        var index: Int32
        var address: IPAddress
        var prefixLength: UInt8
    }

    var key: Key { Key(index: index, address: address, prefixLength: prefixLength) }
}

/// A route as mirrored from `RTM_NEWROUTE`, or the kernel's answer to `RTM_GETROUTE`.
public struct RouteInfo: Hashable, Sendable {
    public var family: IPAddress.Family
    public var table: UInt32
    /// `nil` for the default route.
    public var destination: IPAddress?
    public var destinationLength: UInt8
    public var tos: UInt8
    public var priority: UInt32
    /// `RTN_*`.
    public var type: UInt8
    public var protocolID: UInt8
    public var scope: UInt8
    /// `rtm_flags` plus the first nexthop's `RTNH_F_*`.
    public var flags: UInt32
    /// Output interface index (first nexthop for multipath), 0 if none.
    public var outputInterface: Int32
    public var gateway: IPAddress?
    public var preferredSource: IPAddress?
    /// Number of `RTA_MULTIPATH` nexthops (0 for a single path).
    public var nexthopCount: Int32

    public init(
        family: IPAddress.Family, table: UInt32 = 254, destination: IPAddress? = nil,
        destinationLength: UInt8 = 0, tos: UInt8 = 0, priority: UInt32 = 0, type: UInt8 = 1,
        protocolID: UInt8 = 0, scope: UInt8 = 0, flags: UInt32 = 0, outputInterface: Int32 = 0,
        gateway: IPAddress? = nil, preferredSource: IPAddress? = nil, nexthopCount: Int32 = 0
    ) {
        self.family = family
        self.table = table
        self.destination = destination
        self.destinationLength = destinationLength
        self.tos = tos
        self.priority = priority
        self.type = type
        self.protocolID = protocolID
        self.scope = scope
        self.flags = flags
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.nexthopCount = nexthopCount
    }

    /// `RTN_*` route types.
    public static let typeUnicast = CNL_RTN_UNICAST, typeLocal = CNL_RTN_LOCAL, typeBlackhole = CNL_RTN_BLACKHOLE
    public static let typeUnreachable = CNL_RTN_UNREACHABLE, typeProhibit = CNL_RTN_PROHIBIT
    /// `RTNH_F_LINKDOWN`.
    public static let flagLinkDown = CNL_RTNH_F_LINKDOWN

    /// `RTN_UNICAST`.
    public var isUnicast: Bool { type == CNL_RTN_UNICAST }
    /// `RTN_LOCAL`.
    public var isLocal: Bool { type == CNL_RTN_LOCAL }
    /// Carrier-down on the nexthop (`RTNH_F_LINKDOWN`).
    public var isLinkDown: Bool { flags & CNL_RTNH_F_LINKDOWN != 0 }
    /// `RTNH_F_DEAD`.
    public var isDead: Bool { flags & CNL_RTNH_F_DEAD != 0 }
    /// `RTM_F_CLONED`: a route-cache entry (not mirrored).
    var isCloned: Bool { flags & CNL_RTM_F_CLONED != 0 }

    /// `dst/len` as `ip route` prints it without abbreviations (`0.0.0.0/0`, `::/0` for default).
    public var destinationText: String {
        let dst = destination?.description ?? (family == .ipv4 ? "0.0.0.0" : "::")
        return "\(dst)/\(destinationLength)"
    }

    /// Identity of a route in the kernel's FIB (what `ip route del` matches on).
    public struct Key: Hashable, Sendable {
        var family: IPAddress.Family
        var table: UInt32
        var destination: IPAddress?
        var destinationLength: UInt8
        var tos: UInt8
        var priority: UInt32
        var outputInterface: Int32
        var gateway: IPAddress?
        var type: UInt8

        func sameSlot(_ other: Key) -> Bool {
            family == other.family && table == other.table && destination == other.destination
                && destinationLength == other.destinationLength && tos == other.tos && priority == other.priority
        }
    }

    public var key: Key {
        Key(
            family: family, table: table, destination: destination, destinationLength: destinationLength, tos: tos,
            priority: priority, outputInterface: outputInterface, gateway: gateway, type: type)
    }
}

/// A policy-routing rule as mirrored from `RTM_NEWRULE` (only what reachability needs).
public struct RuleInfo: Hashable, Sendable {
    public var family: IPAddress.Family
    /// `FR_ACT_*` (1 = to table).
    public var action: UInt8
    public var table: UInt32
    public var priority: UInt32
}
