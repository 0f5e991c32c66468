import CNetlink
import Foundation

extension ReachabilityEvaluator {
    /// The reachability of `destination` over `path`, from the mirror alone (no kernel lookup): the path's link
    /// (by name, or the link holding the source address), then its most specific unicast or local route towards
    /// `destination` (any of its routes when `destination` is nil, a default route first) in a table the policy
    /// rules consult, then a usable source address on it. Flags as for a routed target; `problem` says in words
    /// what stops a NotReachable path. `captivePortal`: the captive-portal check's message when it found this path
    /// behind a portal (adds `interventionRequired`, as for a target).
    public static func evaluatePath(
        _ path: NetworkPath, destination: IPAddress?, target: ReachabilityTarget, mirror: NetlinkMirror,
        captivePortal: String? = nil, time: Date = Date()
    ) -> PathEvaluation {
        var pinnedSource: IPAddress?
        let link: LinkInfo?
        switch path {
        case .interface(let name):
            link = mirror.links.values.first { $0.name == name }
        case .source(let address):
            pinnedSource = address
            link = mirror.addresses.first { $0.address == address }.flatMap { mirror.links[$0.index] }
        }
        let family = destination?.family ?? pinnedSource?.family
        guard let link else {
            let problem = switch path {
            case .interface(let name): "interface \(name) does not exist"
            case .source(let address): "no interface has the address \(address)"
            }
            let evaluation = ReachabilityEvaluation(target: target, flags: [], family: family,
                                                    address: destination?.description, time: time)
            return PathEvaluation(evaluation: evaluation, problem: problem)
        }
        let kind = link.kind
        let route = bestRoute(through: link.index, family: family, destination: destination, mirror: mirror)
        var source = pinnedSource ?? route?.preferredSource
        if source == nil, let routeFamily = route?.family ?? family {
            source = Self.preferredSource(on: link.index, family: routeFamily, forLinkLocal: destination?.isIPv6LinkLocal ?? false,
                                     mirror: mirror)
        }
        let usable = source.map(mirror.isUsableSource) ?? false
        var flags = route.map { Self.flags(route: $0, link: link, kind: kind, hasUsableSource: usable) } ?? []
        if captivePortal != nil { flags.formUnion(Self.captiveFlags(flags)) }
        let evaluation = ReachabilityEvaluation(
            target: target, flags: flags, interface: link.name, interfaceKind: kind, gateway: route?.gateway?.description,
            source: source?.description, family: route?.family ?? family, table: route?.table,
            address: destination?.description, time: time)
        guard evaluation.status == .notReachable || evaluation.status == .unknown else {
            return PathEvaluation(evaluation: evaluation, problem: nil)
        }
        let towards = destination.map { " to \($0)" } ?? ""
        let problem: String
        if !link.isUp {
            problem = "interface \(link.name) is down"
        } else if !link.hasCarrier || link.isDormant || link.isLowerLayerDown {
            problem = "interface \(link.name) has no carrier"
        } else if route == nil {
            problem = "no route\(towards) through \(link.name)"
        } else if !usable {
            problem = "interface \(link.name) has no usable \(family.map { $0 == .ipv4 ? "IPv4 " : "IPv6 " } ?? "")address"
        } else if let captivePortal {
            problem = "a captive portal intercepts traffic through \(link.name): \(captivePortal)"
        } else {
            problem = "the route\(towards) through \(link.name) is not usable"
        }
        return PathEvaluation(evaluation: evaluation, problem: problem)
    }

    /// The route through link `index` the kernel would pick for `destination` (longest prefix, then lowest
    /// metric), among live unicast and local routes of `family` in the tables the policy rules consult.
    static func bestRoute(through index: Int32, family: IPAddress.Family?, destination: IPAddress?,
                          mirror: NetlinkMirror) -> RouteInfo? {
        var best: RouteInfo?
        for route in mirror.routes where route.outputInterface == index && (route.isUnicast || route.isLocal) && !route.isDead {
            if let family, route.family != family { continue }
            let tables = (mirror.ruleTables(family: route.family) ?? []).union([CNL_RT_TABLE_MAIN, CNL_RT_TABLE_DEFAULT, CNL_RT_TABLE_LOCAL])
            guard tables.contains(route.table) else { continue }
            if let destination {
                guard covers(route, destination) else { continue }
            } else if route.isLocal {
                continue
            }
            if let current = best {
                if route.destinationLength != current.destinationLength {
                    // Towards a destination the longest prefix wins; without one, a default route does.
                    let longer = route.destinationLength > current.destinationLength
                    if destination == nil ? longer : !longer { continue }
                } else if route.priority >= current.priority {
                    continue
                }
            }
            best = route
        }
        return best
    }

    /// Whether `route`'s destination prefix contains `address`.
    static func covers(_ route: RouteInfo, _ address: IPAddress) -> Bool {
        guard route.family == address.family else { return false }
        guard route.destinationLength > 0, let network = route.destination else { return true }
        let length = Int(route.destinationLength)
        let (lhs, rhs) = (network.bytes, address.bytes)
        for bit in 0..<min(length, lhs.count * 8) {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if lhs[bit / 8] & mask != rhs[bit / 8] & mask { return false }
        }
        return true
    }
}
