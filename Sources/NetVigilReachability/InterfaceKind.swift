/// What kind of interface a route leaves through.
public enum InterfaceKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case loopback
    case ethernet
    case wifi
    case wwan
    /// tun, wireguard, ppp, ipip, gre, sit, vti, ... (sets `transientConnection`).
    case vpn
    case bridge
    /// veth, macvlan, vxlan, tap, vlan, bond, ... (software, not a tunnel).
    case virtual
    case other

    public var description: String { rawValue }

    /// `IFLA_INFO_KIND` values of tunnels / VPNs.
    static let vpnInfoKinds: Set<String> = [
        "tun", "wireguard", "ppp", "ipip", "gre", "gretap", "ip6gre", "ip6gretap", "ip6tnl", "sit", "vti", "vti6",
        "xfrm", "l2tp", "erspan", "ip6erspan", "openvpn", "amneziawg", "ovpn",
    ]
    /// `IFLA_INFO_KIND` values of other software interfaces.
    static let virtualInfoKinds: Set<String> = [
        "veth", "macvlan", "macvtap", "ipvlan", "ipvtap", "vxlan", "geneve", "bareudp", "vlan", "bond", "team",
        "dummy", "ifb", "vrf", "nlmon", "netdevsim", "macsec", "hsr", "batadv", "vcan", "vxcan", "netkit",
    ]

    /// Classifies a link in NetworkManager's order: `IFLA_INFO_KIND`, ARPHRD type, uevent `DEVTYPE`
    /// (`wlan`/`wwan`), `phy80211`/`wireless` presence, then `ARPHRD_RAWIP` or `rmnet*`/`ccmni*` names
    /// for WWAN. `ARPHRD_NONE` alone is not WWAN.
    public static func classify(_ link: LinkInfo) -> InterfaceKind {
        // 1. Software devices announce their kind.
        if let infoKind = link.infoKind?.lowercased(), !infoKind.isEmpty {
            if infoKind == "tun" {
                // tun and tap share the "tun" kind; tap (ARPHRD_ETHER) is an L2 virtual device.
                return link.arphrd == LinkInfo.arphrdEther ? .virtual : .vpn
            }
            if infoKind == "bridge" { return .bridge }
            if vpnInfoKinds.contains(infoKind) { return .vpn }
            if virtualInfoKinds.contains(infoKind) { return .virtual }
            if infoKind == "rmnet" || infoKind == "qmi_wwan" { return .wwan }
        }
        // 2. ARPHRD types that decide alone.
        switch link.arphrd {
        case LinkInfo.arphrdLoopback:
            return .loopback
        case LinkInfo.arphrdIEEE80211, LinkInfo.arphrdIEEE80211Prism, LinkInfo.arphrdIEEE80211Radiotap:
            return .wifi
        case LinkInfo.arphrdPPP, LinkInfo.arphrdTunnel, LinkInfo.arphrdTunnel6, LinkInfo.arphrdSit,
             LinkInfo.arphrdIPGRE, LinkInfo.arphrdIP6GRE:
            return .vpn
        default:
            break
        }
        if link.flags & LinkInfo.iffLoopback != 0 { return .loopback }
        // 3. uevent DEVTYPE.
        switch link.devtype?.lowercased() {
        case "wlan": return .wifi
        case "wwan": return .wwan
        case "bridge": return .bridge
        default: break
        }
        // 4. Wireless extensions / cfg80211.
        if link.isWireless { return .wifi }
        // 5. WWAN by raw-IP framing or by the Qualcomm / MediaTek modem interface names.
        if link.arphrd == LinkInfo.arphrdRawIP { return .wwan }
        if link.name.hasPrefix("rmnet") || link.name.hasPrefix("rev_rmnet") || link.name.hasPrefix("ccmni") {
            return .wwan
        }
        // 6. What is left.
        if link.arphrd == LinkInfo.arphrdEther { return .ethernet }
        return .other
    }
}
