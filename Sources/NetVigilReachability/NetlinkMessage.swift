import CNetlink

/// One rtnetlink message the watcher acts on, parsed into Swift values: the mirror and the watcher's state
/// machine take these, so tests build them without a socket.
enum NetlinkMessage: Hashable, Sendable {
    /// `RTM_NEWLINK` (`devtype` not probed yet; `isWireless` from `IFLA_WIRELESS`).
    case newLink(LinkInfo)
    case deleteLink(index: Int32)
    case newAddress(AddressInfo)
    case deleteAddress(AddressInfo)
    /// `RTM_NEWROUTE`; `replace` is `NLM_F_REPLACE` (the route takes the place of those in its slot).
    case newRoute(RouteInfo, replace: Bool)
    case deleteRoute(RouteInfo)
    case newRule(RuleInfo)
    case deleteRule(RuleInfo)

    /// Parses a notification or dump reply; `nil` for other types and malformed messages.
    init?(parsing message: UnsafeRawPointer) {
        let type = cnl_nlmsg_type(message)
        switch type {
        case CNL_RTM_NEWLINK, CNL_RTM_DELLINK:
            var raw = cnl_link()
            guard cnl_parse_link(message, &raw) == 0 else { return nil }
            if type == CNL_RTM_DELLINK {
                self = .deleteLink(index: raw.index)
                return
            }
            let kind = Self.string(raw.kind)
            self = .newLink(LinkInfo(
                index: raw.index, name: Self.string(raw.name), flags: raw.flags, operstate: raw.operstate,
                arphrd: raw.arphrd, infoKind: kind.isEmpty ? nil : kind, devtype: nil, isWireless: raw.has_wireless))
        case CNL_RTM_NEWADDR, CNL_RTM_DELADDR:
            var raw = cnl_addr()
            guard cnl_parse_addr(message, &raw) == 0, let family = IPAddress.Family(rawValue: raw.family) else {
                return nil
            }
            let info = AddressInfo(
                index: raw.index, address: IPAddress(family: family, tuple: raw.address),
                prefixLength: raw.prefixlen, scope: raw.scope, flags: raw.flags)
            self = type == CNL_RTM_DELADDR ? .deleteAddress(info) : .newAddress(info)
        case CNL_RTM_NEWROUTE, CNL_RTM_DELROUTE:
            guard let route = Self.route(from: message) else { return nil }
            self = type == CNL_RTM_DELROUTE
                ? .deleteRoute(route) : .newRoute(route, replace: cnl_nlmsg_flags(message) & CNL_NLM_F_REPLACE != 0)
        case CNL_RTM_NEWRULE, CNL_RTM_DELRULE:
            var raw = cnl_rule()
            guard cnl_parse_rule(message, &raw) == 0, let family = IPAddress.Family(rawValue: raw.family) else {
                return nil
            }
            let rule = RuleInfo(family: family, action: raw.action, table: raw.table, priority: raw.priority)
            self = type == CNL_RTM_DELRULE ? .deleteRule(rule) : .newRule(rule)
        default:
            return nil
        }
    }

    /// Parses a route message (also used for `RTM_GETROUTE` replies).
    static func route(from message: UnsafeRawPointer) -> RouteInfo? {
        var raw = cnl_route()
        guard cnl_parse_route(message, &raw) == 0, let family = IPAddress.Family(rawValue: raw.family) else {
            return nil
        }
        let gatewayFamily = IPAddress.Family(rawValue: raw.gateway_family) ?? family
        return RouteInfo(
            family: family, table: raw.table,
            destination: raw.has_dst ? IPAddress(family: family, tuple: raw.dst) : nil,
            destinationLength: raw.dst_len, tos: raw.tos, priority: raw.priority, type: raw.type,
            protocolID: raw.protocol, scope: raw.scope, flags: raw.flags, outputInterface: raw.oif,
            gateway: raw.has_gateway ? IPAddress(family: gatewayFamily, tuple: raw.gateway) : nil,
            preferredSource: raw.has_prefsrc ? IPAddress(family: family, tuple: raw.prefsrc) : nil,
            nexthopCount: raw.nexthops)
    }

    private static func string<T>(_ tuple: T) -> String {
        var copy = tuple
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
