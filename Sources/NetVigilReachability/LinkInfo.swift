import CNetlink

/// One network interface as mirrored from `RTM_NEWLINK` plus `/sys/class/net/IF/uevent`.
///
/// Plain data: the classifier and the flag computation are pure functions over it, so tests can
/// feed synthetic links (Wi-Fi, WWAN, rmnet, ARPHRD_NONE) that cannot exist on a test machine.
public struct LinkInfo: Hashable, Sendable {
    public var index: Int32
    public var name: String
    /// `IFF_*` flags (`ifi_flags`).
    public var flags: UInt32
    /// `IF_OPER_*` from `IFLA_OPERSTATE`.
    public var operstate: UInt8
    /// `ARPHRD_*` (`ifi_type`).
    public var arphrd: UInt16
    /// `IFLA_INFO_KIND` (`veth`, `tun`, `bridge`, ...), `nil` for hardware devices.
    public var infoKind: String?
    /// `DEVTYPE=` from the uevent file (`wlan`, `wwan`, `bridge`, ...).
    public var devtype: String?
    /// `phy80211` or `wireless` present under `/sys/class/net/IF`, or `IFLA_WIRELESS` seen.
    public var isWireless: Bool

    public init(
        index: Int32, name: String, flags: UInt32, operstate: UInt8 = LinkInfo.operUnknown, arphrd: UInt16,
        infoKind: String? = nil, devtype: String? = nil, isWireless: Bool = false
    ) {
        self.index = index
        self.name = name
        self.flags = flags
        self.operstate = operstate
        self.arphrd = arphrd
        self.infoKind = infoKind
        self.devtype = devtype
        self.isWireless = isWireless
    }

    // IFF_* (linux/if.h)
    public static let iffUp = CNL_IFF_UP
    public static let iffLoopback = CNL_IFF_LOOPBACK
    public static let iffPointToPoint = CNL_IFF_POINTOPOINT
    public static let iffRunning = CNL_IFF_RUNNING
    public static let iffLowerUp = CNL_IFF_LOWER_UP
    public static let iffDormant = CNL_IFF_DORMANT
    // IF_OPER_* (linux/if.h)
    public static let operUnknown = CNL_IF_OPER_UNKNOWN
    public static let operNotPresent = CNL_IF_OPER_NOTPRESENT
    public static let operDown = CNL_IF_OPER_DOWN
    public static let operLowerLayerDown = CNL_IF_OPER_LOWERLAYERDOWN
    public static let operTesting = CNL_IF_OPER_TESTING
    public static let operDormant = CNL_IF_OPER_DORMANT
    public static let operUp = CNL_IF_OPER_UP
    // ARPHRD_* (linux/if_arp.h)
    public static let arphrdEther = CNL_ARPHRD_ETHER
    public static let arphrdInfiniband = CNL_ARPHRD_INFINIBAND
    public static let arphrdRawIP = CNL_ARPHRD_RAWIP
    public static let arphrdPPP = CNL_ARPHRD_PPP
    public static let arphrdTunnel = CNL_ARPHRD_TUNNEL
    public static let arphrdTunnel6 = CNL_ARPHRD_TUNNEL6
    public static let arphrdLoopback = CNL_ARPHRD_LOOPBACK
    public static let arphrdSit = CNL_ARPHRD_SIT
    public static let arphrdIPGRE = CNL_ARPHRD_IPGRE
    public static let arphrdIEEE80211 = CNL_ARPHRD_IEEE80211
    public static let arphrdIEEE80211Prism = CNL_ARPHRD_IEEE80211_PRISM
    public static let arphrdIEEE80211Radiotap = CNL_ARPHRD_IEEE80211_RADIOTAP
    public static let arphrdIP6GRE = CNL_ARPHRD_IP6GRE
    public static let arphrdNone = CNL_ARPHRD_NONE

    /// `IFF_UP`: administratively up.
    public var isUp: Bool { flags & Self.iffUp != 0 }
    /// `IFF_POINTOPOINT`.
    public var isPointToPoint: Bool { flags & Self.iffPointToPoint != 0 }
    /// Dormant: `IFF_DORMANT` or operstate `DORMANT`.
    public var isDormant: Bool { flags & Self.iffDormant != 0 || operstate == Self.operDormant }
    /// operstate `LOWERLAYERDOWN`.
    public var isLowerLayerDown: Bool { operstate == Self.operLowerLayerDown }

    /// Carrier as systemd's `netif_has_carrier`: operstate UP, or operstate UNKNOWN with
    /// `IFF_LOWER_UP|IFF_RUNNING` and not `IFF_DORMANT` (drivers that do not report operstate).
    public var hasCarrier: Bool {
        if operstate == Self.operUp { return true }
        guard operstate == Self.operUnknown else { return false }
        let lowerRunning = Self.iffLowerUp | Self.iffRunning
        return flags & lowerRunning == lowerRunning && flags & Self.iffDormant == 0
    }

    /// The interface kind, see `InterfaceKind.classify(_:)`.
    public var kind: InterfaceKind { InterfaceKind.classify(self) }
}
