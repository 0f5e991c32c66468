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
    mutating func apply(_ message: NetlinkMessage, probe: LinkProbe) -> Change {
        switch message {
        case var .newLink(info):
            if let old = links[info.index], old.name == info.name {
                info.devtype = old.devtype
                info.isWireless = info.isWireless || old.isWireless
            } else {
                let probed = probe(info.name, info.index)
                info.devtype = probed.devtype
                info.isWireless = info.isWireless || probed.wireless
            }
            if links[info.index] == info { return [] }
            links[info.index] = info
            return .links
        case let .deleteLink(index):
            removeLink(index)
            return [.links, .addresses, .routes]
        case let .newAddress(info):
            if addressTable[info.key] == info { return [] }
            addressTable[info.key] = info
            return .addresses
        case let .deleteAddress(info):
            return addressTable.removeValue(forKey: info.key) == nil ? [] : .addresses
        case let .newRoute(info, replace):
            guard !info.isCloned else { return [] }
            if replace {
                let key = info.key
                routeTable = routeTable.filter { !$0.key.sameSlot(key) || $0.key == key }
            }
            if routeTable[info.key] == info { return [] }
            routeTable[info.key] = info
            return .routes
        case let .deleteRoute(info):
            guard !info.isCloned else { return [] }
            if routeTable.removeValue(forKey: info.key) != nil { return .routes }
            // Deletions may omit details; fall back to the slot plus interface.
            let before = routeTable.count
            routeTable = routeTable.filter {
                !($0.key.sameSlot(info.key)
                    && (info.outputInterface == 0 || $0.value.outputInterface == info.outputInterface))
            }
            return before == routeTable.count ? [] : .routes
        case let .newRule(rule):
            ruleCounts[rule, default: 0] += 1
            return .rules
        case let .deleteRule(rule):
            guard let count = ruleCounts[rule] else { return [] }
            ruleCounts[rule] = count > 1 ? count - 1 : nil
            return .rules
        }
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
        let tables = ruleCounts.keys.filter { $0.family == family && $0.action == CNL_FR_ACT_TO_TBL }.map(\.table)
        return tables.isEmpty ? nil : Set(tables)
    }
}
