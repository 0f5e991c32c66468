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
    public static let iffUp: UInt32 = 0x1
    public static let iffLoopback: UInt32 = 0x8
    public static let iffPointToPoint: UInt32 = 0x10
    public static let iffRunning: UInt32 = 0x40
    public static let iffLowerUp: UInt32 = 0x10000
    public static let iffDormant: UInt32 = 0x20000
    // IF_OPER_* (linux/if.h)
    public static let operUnknown: UInt8 = 0
    public static let operNotPresent: UInt8 = 1
    public static let operDown: UInt8 = 2
    public static let operLowerLayerDown: UInt8 = 3
    public static let operTesting: UInt8 = 4
    public static let operDormant: UInt8 = 5
    public static let operUp: UInt8 = 6
    // ARPHRD_* (linux/if_arp.h)
    public static let arphrdEther: UInt16 = 1
    public static let arphrdInfiniband: UInt16 = 32
    public static let arphrdRawIP: UInt16 = 519
    public static let arphrdPPP: UInt16 = 512
    public static let arphrdTunnel: UInt16 = 768
    public static let arphrdTunnel6: UInt16 = 769
    public static let arphrdLoopback: UInt16 = 772
    public static let arphrdSit: UInt16 = 776
    public static let arphrdIPGRE: UInt16 = 778
    public static let arphrdIEEE80211: UInt16 = 801
    public static let arphrdIEEE80211Prism: UInt16 = 802
    public static let arphrdIEEE80211Radiotap: UInt16 = 803
    public static let arphrdIP6GRE: UInt16 = 823
    public static let arphrdNone: UInt16 = 65534

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
