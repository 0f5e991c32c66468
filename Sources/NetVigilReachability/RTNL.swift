/// rtnetlink constants (kernel ABI, linux/rtnetlink.h and friends). Kept in Swift because importing the
/// kernel headers next to glibc's `<net/if.h>` clashes.
enum RTNL {
    static let newLink: UInt16 = 16, delLink: UInt16 = 17, getLink: UInt16 = 18
    static let newAddr: UInt16 = 20, delAddr: UInt16 = 21, getAddr: UInt16 = 22
    static let newRoute: UInt16 = 24, delRoute: UInt16 = 25, getRoute: UInt16 = 26
    static let newRule: UInt16 = 32, delRule: UInt16 = 33, getRule: UInt16 = 34

    static let nlmsgNoop: UInt16 = 1, nlmsgError: UInt16 = 2, nlmsgDone: UInt16 = 3, nlmsgOverrun: UInt16 = 4

    static let flagMulti: UInt16 = 0x2
    static let flagDumpInterrupted: UInt16 = 0x10
    static let flagReplace: UInt16 = 0x100

    // rtnetlink multicast groups (enum rtnetlink_groups)
    static let groupLink: UInt32 = 1
    static let groupIPv4Addr: UInt32 = 5
    static let groupIPv4Route: UInt32 = 7
    static let groupIPv4Rule: UInt32 = 8
    static let groupIPv6Addr: UInt32 = 9
    static let groupIPv6Route: UInt32 = 11
    static let groupIPv6Rule: UInt32 = 19
    static let watchedGroups: [UInt32] = [
        groupLink, groupIPv4Addr, groupIPv6Addr, groupIPv4Route, groupIPv6Route, groupIPv4Rule, groupIPv6Rule,
    ]

    // RTN_*
    static let rtnUnicast: UInt8 = 1, rtnLocal: UInt8 = 2, rtnBroadcast: UInt8 = 3, rtnAnycast: UInt8 = 4
    static let rtnMulticast: UInt8 = 5, rtnBlackhole: UInt8 = 6, rtnUnreachable: UInt8 = 7
    static let rtnProhibit: UInt8 = 8, rtnThrow: UInt8 = 9
    // rtm_flags / RTNH_F_*
    static let rtnhDead: UInt32 = 1, rtnhLinkdown: UInt32 = 16
    static let rtmCloned: UInt32 = 0x200
    // tables
    static let tableDefault: UInt32 = 253, tableMain: UInt32 = 254, tableLocal: UInt32 = 255
    // IFA_F_*
    static let ifaDadFailed: UInt32 = 0x08, ifaTentative: UInt32 = 0x40
    // FR_ACT_TO_TBL
    static let frActToTable: UInt8 = 1

    static let afUnspec: UInt8 = 0, afInet: UInt8 = 2, afInet6: UInt8 = 10
}
