import CNetlink

/// The in-memory copy of the kernel's links, addresses, routes and rules, fed by dumps and
/// incremental rtnetlink notifications.
public struct NetlinkMirror: Sendable, Equatable {
    public internal(set) var links: [Int32: LinkInfo] = [:]
    var addressTable: [AddressInfo.Key: AddressInfo] = [:]
    var routeTable: [RouteInfo.Key: RouteInfo] = [:]
    var ruleCounts: [RuleInfo: Int] = [:]

    public init() {}

    /// All addresses.
    public var addresses: [AddressInfo] { Array(addressTable.values) }
    /// All routes (cloned/cache entries are not mirrored).
    public var routes: [RouteInfo] { Array(routeTable.values) }
    /// All policy rules (with multiplicity).
    public var rules: [RuleInfo] { ruleCounts.flatMap { Array(repeating: $0.key, count: $0.value) } }

    /// What kind of object a message changed.
    public struct Change: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let links = Change(rawValue: 1)
        public static let addresses = Change(rawValue: 2)
        public static let routes = Change(rawValue: 4)
        public static let rules = Change(rawValue: 8)
    }

    /// Reads `DEVTYPE` and wireless presence for a new or renamed link.
    typealias LinkProbe = (_ name: String, _ index: Int32) -> (devtype: String?, wireless: Bool)

    /// Applies one rtnetlink message (notification or dump reply); returns what changed.
    @discardableResult
    mutating func apply(message: UnsafeRawPointer, probe: LinkProbe) -> Change {
        let type = cnl_nlmsg_type(message)
        switch type {
        case RTNL.newLink, RTNL.delLink:
            var raw = cnl_link()
            guard cnl_parse_link(message, &raw) == 0 else { return [] }
            if type == RTNL.delLink {
                removeLink(raw.index)
                return [.links, .addresses, .routes]
            }
            let name = Self.string(raw.name)
            let kind = Self.string(raw.kind)
            var info = LinkInfo(
                index: raw.index, name: name, flags: raw.flags, operstate: raw.operstate, arphrd: raw.arphrd,
                infoKind: kind.isEmpty ? nil : kind, devtype: nil, isWireless: raw.has_wireless)
            if let old = links[raw.index], old.name == name {
                info.devtype = old.devtype
                info.isWireless = info.isWireless || old.isWireless
            } else {
                let probed = probe(name, raw.index)
                info.devtype = probed.devtype
                info.isWireless = info.isWireless || probed.wireless
            }
            if links[raw.index] == info { return [] }
            links[raw.index] = info
            return .links
        case RTNL.newAddr, RTNL.delAddr:
            var raw = cnl_addr()
            guard cnl_parse_addr(message, &raw) == 0, let family = IPAddress.Family(rawValue: raw.family) else {
                return []
            }
            let info = AddressInfo(
                index: raw.index, address: IPAddress(family: family, tuple: raw.address),
                prefixLength: raw.prefixlen, scope: raw.scope, flags: raw.flags)
            if type == RTNL.delAddr {
                return addressTable.removeValue(forKey: info.key) == nil ? [] : .addresses
            }
            if addressTable[info.key] == info { return [] }
            addressTable[info.key] = info
            return .addresses
        case RTNL.newRoute, RTNL.delRoute:
            guard let info = Self.route(from: message), info.flags & RTNL.rtmCloned == 0 else { return [] }
            if type == RTNL.delRoute {
                if routeTable.removeValue(forKey: info.key) != nil { return .routes }
                // Deletions may omit details; fall back to the slot plus interface.
                let before = routeTable.count
                routeTable = routeTable.filter {
                    !($0.key.sameSlot(info.key)
                        && (info.outputInterface == 0 || $0.value.outputInterface == info.outputInterface))
                }
                return before == routeTable.count ? [] : .routes
            }
            if cnl_nlmsg_flags(message) & RTNL.flagReplace != 0 {
                let key = info.key
                routeTable = routeTable.filter { !$0.key.sameSlot(key) || $0.key == key }
            }
            if routeTable[info.key] == info { return [] }
            routeTable[info.key] = info
            return .routes
        case RTNL.newRule, RTNL.delRule:
            var raw = cnl_rule()
            guard cnl_parse_rule(message, &raw) == 0, let family = IPAddress.Family(rawValue: raw.family) else {
                return []
            }
            let rule = RuleInfo(family: family, action: raw.action, table: raw.table, priority: raw.priority)
            if type == RTNL.delRule {
                guard let count = ruleCounts[rule] else { return [] }
                ruleCounts[rule] = count > 1 ? count - 1 : nil
            } else {
                ruleCounts[rule, default: 0] += 1
            }
            return .rules
        default:
            return []
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

    mutating func removeLink(_ index: Int32) {
        links[index] = nil
        addressTable = addressTable.filter { $0.value.index != index }
        routeTable = routeTable.filter { $0.value.outputInterface != index }
    }

    /// Drops every route of `family` (before replacing them with a fresh dump).
    mutating func removeRoutes(family: IPAddress.Family) {
        routeTable = routeTable.filter { $0.key.family != family }
    }

    /// Drops everything (before a full re-dump).
    mutating func removeAll() {
        links = [:]
        addressTable = [:]
        routeTable = [:]
        ruleCounts = [:]
    }

    /// Addresses configured on one link.
    public func addresses(on index: Int32) -> [AddressInfo] {
        addressTable.values.filter { $0.index == index }
    }

    /// Whether `address` is configured somewhere and usable as a source.
    public func isUsableSource(_ address: IPAddress) -> Bool {
        addressTable.values.contains { $0.address == address && $0.isUsable }
    }

    /// Tables consulted by policy rules of `family` (`nil` when no rule of that family is known).
    public func ruleTables(family: IPAddress.Family) -> Set<UInt32>? {
        let tables = ruleCounts.keys.filter { $0.family == family && $0.action == RTNL.frActToTable }.map(\.table)
        return tables.isEmpty ? nil : Set(tables)
    }

    static func string<T>(_ tuple: T) -> String {
        var copy = tuple
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
