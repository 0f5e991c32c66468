import CNetlink
import Foundation

/// The kernel's answer to `RTM_GETROUTE` for one address.
public enum RouteLookup: Sendable, Hashable {
    /// The route the kernel would use.
    case route(RouteInfo)
    /// The lookup failed with this errno (`ENETUNREACH`, `EHOSTUNREACH`, `EACCES`, `EINVAL`, ...).
    case failure(errno: Int32)
}

/// Pure functions from routes and links to flags and evaluations. No I/O: tests feed synthetic data.
public enum ReachabilityEvaluator {
    /// Flags for a route leaving through `link`.
    ///
    /// - `reachable`: unicast or local route, interface up with carrier, not dormant, usable source address;
    /// - `connectionRequired`: route exists, interface up but without carrier, dormant, lower layer down,
    ///   or the route is marked linkdown;
    /// - `transientConnection`: point-to-point, VPN/tunnel or WWAN interface; `isWWAN`: kind `wwan`;
    /// - `isLocalAddress`: `RTN_LOCAL`; `isDirect`: no gateway;
    /// - unreachable / blackhole / prohibit / throw routes, dead nexthops and unknown interfaces: no flags.
    public static func flags(route: RouteInfo, link: LinkInfo?, hasUsableSource: Bool) -> ReachabilityFlags {
        flags(route: route, link: link, kind: link?.kind, hasUsableSource: hasUsableSource)
    }

    /// `flags(route:link:hasUsableSource:)` with the link's kind already known.
    static func flags(route: RouteInfo, link: LinkInfo?, kind: InterfaceKind?, hasUsableSource: Bool)
        -> ReachabilityFlags
    {
        guard route.isUnicast || route.isLocal, !route.isDead, let link, let kind else { return [] }
        var flags: ReachabilityFlags = []
        if route.isLocal { flags.insert(.isLocalAddress) }
        if route.gateway == nil { flags.insert(.isDirect) }
        if link.isPointToPoint || kind == .vpn || kind == .wwan { flags.insert(.transientConnection) }
        if kind == .wwan { flags.insert(.isWWAN) }
        guard link.isUp else { return flags }
        let carrierMissing = !link.hasCarrier || link.isDormant || link.isLowerLayerDown || route.isLinkDown
        if carrierMissing {
            flags.insert(.connectionRequired)
        } else if hasUsableSource {
            flags.insert(.reachable)
        }
        return flags
    }

    /// The evaluation of one address from the kernel's route lookup and the mirror.
    public static func evaluate(
        target: ReachabilityTarget, address: IPAddress, lookup: RouteLookup, mirror: NetlinkMirror,
        interventionRequired: Bool = false, time: Date = Date()
    ) -> ReachabilityEvaluation {
        var cache = EvaluationCache()
        return evaluate(
            target: target, address: address, lookup: lookup, mirror: mirror,
            interventionRequired: interventionRequired, time: time, cache: &cache)
    }

    /// `evaluate(target:address:lookup:mirror:interventionRequired:time:)` sharing `cache` with the other
    /// evaluations of a recompute.
    static func evaluate(
        target: ReachabilityTarget, address: IPAddress, lookup: RouteLookup, mirror: NetlinkMirror,
        interventionRequired: Bool, time: Date, cache: inout EvaluationCache
    ) -> ReachabilityEvaluation {
        guard case let .route(route) = lookup else {
            return ReachabilityEvaluation(
                target: target, flags: interventionRequired ? .interventionRequired : [], family: address.family,
                address: cache.text(address), time: time)
        }
        let link = mirror.links[route.outputInterface]
        let kind = link.map { cache.kind(of: $0) }
        var source = route.preferredSource
        if source == nil, let link {
            source = cache.preferredSource(
                on: link.index, family: address.family, forLinkLocal: address.isIPv6LinkLocal, mirror: mirror)
        }
        if source == nil, route.isLocal { source = address }
        let usable = source.map { cache.isUsableSource($0, mirror: mirror) } ?? false
        var flags = Self.flags(route: route, link: link, kind: kind, hasUsableSource: usable)
        if interventionRequired { flags.formUnion(Self.captiveFlags(flags)) }
        return ReachabilityEvaluation(
            target: target, flags: flags, interface: link?.name, interfaceKind: kind,
            gateway: route.gateway.map { cache.text($0) }, source: source.map { cache.text($0) },
            family: route.family, table: route.table, address: cache.text(address), time: time)
    }

    /// What a captive portal adds, as SCNetworkReachability reports such a network: the route works but a
    /// connection needs the user (`connectionRequired` + `interventionRequired`), which AFNetworking's formula maps
    /// to NotReachable.
    static func captiveFlags(_ flags: ReachabilityFlags) -> ReachabilityFlags {
        flags.contains(.reachable) ? [.interventionRequired, .connectionRequired] : .interventionRequired
    }

    /// `default`: is there any usable default route (IPv4 or IPv6) in a table the policy rules consult?
    /// Picks the best candidate: usable first, then lower metric, then IPv4.
    public static func evaluateDefault(
        mirror: NetlinkMirror, interventionRequired: Bool = false, time: Date = Date()
    ) -> ReachabilityEvaluation {
        var cache = EvaluationCache()
        return evaluateDefault(mirror: mirror, interventionRequired: interventionRequired, time: time, cache: &cache)
    }

    /// `evaluateDefault(mirror:interventionRequired:time:)` sharing `cache` with the other evaluations of a
    /// recompute.
    static func evaluateDefault(
        mirror: NetlinkMirror, interventionRequired: Bool, time: Date, cache: inout EvaluationCache
    ) -> ReachabilityEvaluation {
        var best: (evaluation: ReachabilityEvaluation, route: RouteInfo)?
        for route in mirror.routes where route.destinationLength == 0 && route.isUnicast && !route.isDead {
            if route.table == CNL_RT_TABLE_LOCAL { continue }
            let allowedTables = mirror.ruleTables(family: route.family) ?? [CNL_RT_TABLE_MAIN, CNL_RT_TABLE_DEFAULT]
            if !allowedTables.contains(route.table) { continue }
            let link = mirror.links[route.outputInterface]
            let kind = link.map { cache.kind(of: $0) }
            var source = route.preferredSource
            if source == nil, let link {
                source = cache.preferredSource(on: link.index, family: route.family, forLinkLocal: false, mirror: mirror)
            }
            let usable = source.map { cache.isUsableSource($0, mirror: mirror) } ?? false
            var flags = flags(route: route, link: link, kind: kind, hasUsableSource: usable)
            if interventionRequired { flags.formUnion(Self.captiveFlags(flags)) }
            let evaluation = ReachabilityEvaluation(
                target: .default, flags: flags, interface: link?.name, interfaceKind: kind,
                gateway: route.gateway.map { cache.text($0) }, source: source.map { cache.text($0) },
                family: route.family, table: route.table, address: nil, time: time)
            if let current = best {
                if isBetter(evaluation, route, than: current.evaluation, current.route) { best = (evaluation, route) }
            } else {
                best = (evaluation, route)
            }
        }
        return best?.evaluation
            ?? ReachabilityEvaluation(
                target: .default, flags: interventionRequired ? .interventionRequired : [], time: time)
    }

    /// Ordering used to pick among several addresses or routes: usable status, then reachable or
    /// connection-required, then any flags.
    public static func rank(_ evaluation: ReachabilityEvaluation) -> Int {
        if evaluation.status.isReachable { return 3 }
        if evaluation.flags.contains(.reachable) || evaluation.flags.contains(.connectionRequired) { return 2 }
        return evaluation.flags.subtracting(.interventionRequired).isEmpty ? 0 : 1
    }

    /// A usable address of `family` on `index` (IPv6: global before link-local; link-local only for
    /// link-local destinations).
    static func preferredSource(
        on index: Int32, family: IPAddress.Family, forLinkLocal: Bool, mirror: NetlinkMirror
    ) -> IPAddress? {
        let candidates = mirror.addresses(on: index).filter {
            $0.address.family == family && $0.isUsable && (forLinkLocal || !$0.address.isIPv6LinkLocal)
        }
        return candidates.min { ($0.scope, $0.address) < ($1.scope, $1.address) }?.address
    }

    private static func isBetter(
        _ a: ReachabilityEvaluation, _ ra: RouteInfo, than b: ReachabilityEvaluation, _ rb: RouteInfo
    ) -> Bool {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA > rankB }
        if ra.priority != rb.priority { return ra.priority < rb.priority }
        return ra.family.rawValue < rb.family.rawValue
    }
}
