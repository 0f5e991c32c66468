/// What changed since the last recompute, to order the work (the recompute still covers every target).
struct RecomputeHint: Equatable {
    /// Names (old and new) of links whose record or addresses changed: targets last routed through them
    /// go first.
    var changedLinkNames: Set<String>
    /// The kernel may have flushed IPv4 routes without notifications: re-dump them before `default`.
    var redumpIPv4Routes: Bool
    /// Not only link state changed (routes, rules, addresses, commands): every target counts as affected.
    var all: Bool

    static let everything = RecomputeHint(changedLinkNames: [], redumpIPv4Routes: false, all: true)

    init(changedLinkNames: Set<String>, redumpIPv4Routes: Bool, all: Bool) {
        self.changedLinkNames = changedLinkNames
        self.redumpIPv4Routes = redumpIPv4Routes
        self.all = all
    }

    /// The hint for notifications that made `changed` to the mirror, from `linksBefore` and
    /// `addressesBefore` to `mirror`; `all` also when commands, host names or timers asked for a recompute.
    init(
        changed: NetlinkMirror.Change, linksBefore: [Int32: LinkInfo], addressesBefore: [AddressInfo.Key: AddressInfo],
        mirror: NetlinkMirror, commandsOrTimers: Bool
    ) {
        let changedLinks = Self.changedLinks(before: linksBefore, after: mirror.links)
        var touched = changedLinks
        if changed.contains(.addresses) {
            for (key, info) in addressesBefore where mirror.addressTable[key] != info { touched.insert(info.index) }
            for (key, info) in mirror.addressTable where addressesBefore[key] != info { touched.insert(info.index) }
        }
        self.init(
            changedLinkNames: Set(touched.flatMap { index in
                [linksBefore[index]?.name, mirror.links[index]?.name].compactMap { $0 }
            }),
            redumpIPv4Routes: Self.needsIPv4RouteRedump(
                changedLinks: changedLinks, linksBefore: linksBefore, addressesBefore: addressesBefore, mirror: mirror),
            all: changed.contains(.routes) || changed.contains(.rules) || commandsOrTimers)
    }

    static func changedLinks(before: [Int32: LinkInfo], after: [Int32: LinkInfo]) -> Set<Int32> {
        var changed = Set<Int32>()
        for (index, link) in after where before[index] != link { changed.insert(index) }
        for index in before.keys where after[index] == nil { changed.insert(index) }
        return changed
    }

    /// The kernel flushes IPv4 routes without `RTM_DELROUTE` when a link goes down, is removed or loses its
    /// last address (and routes whose preferred source was a removed address), and it sets or clears
    /// `RTNH_F_LINKDOWN` on carrier changes without telling anyone. Re-dump IPv4 routes when any of that can
    /// have happened: an IPv4 address was removed, or a changed link carries (or carried) IPv4 routes in
    /// the mirror, or an IPv4 route has several nexthops (their devices are not all mirrored).
    static func needsIPv4RouteRedump(
        changedLinks: Set<Int32>, linksBefore: [Int32: LinkInfo], addressesBefore: [AddressInfo.Key: AddressInfo],
        mirror: NetlinkMirror
    ) -> Bool {
        for (key, info) in addressesBefore where info.address.family == .ipv4 && mirror.addressTable[key] == nil {
            return true
        }
        guard !changedLinks.isEmpty else { return false }
        for index in changedLinks where linksBefore[index] != nil && mirror.links[index] == nil { return true }
        return mirror.routeTable.values.contains { route in
            route.family == .ipv4 && (changedLinks.contains(route.outputInterface) || route.nexthopCount > 1)
        }
    }
}
