import NetVigilProber

extension TargetsSection {
    /// The target key naming the network path(s) a target is probed over.
    static let sourceKey = "source"
    /// Most probes one tick of one target may make: paths × addresses.
    static let maxProbesPerTick = 64

    /// Reads `source: { interface: NAME }`, `source: { interfaces: [A, B] }` or `source: { address: IP }` once the
    /// target's `ip:`, proxy and addresses are known. Exactly one of the three keys; interface names are possible
    /// Linux names, listed once; an address is an IP literal of an allowed family (the target then uses only that
    /// family); not with a proxy (the proxy's own network decides the path to the origin); paths × addresses (the
    /// `connect_to` count, or up to `Prober.maxAddressesPerProbe` with `addresses: all`) at most
    /// `maxProbesPerTick`.
    static func applySource(to target: inout ProbeTarget, mapping: ConfigMapping) throws {
        guard let value = mapping[sourceKey] else { return }
        let keys = ["interface", "interfaces", "address"]
        let source = try value.mapping(allowedKeys: keys)
        let given = keys.filter { source[$0] != nil }
        guard given.count == 1 else {
            throw value.error(given.isEmpty ? "source needs one of interface, interfaces or address"
                              : "source takes one of interface, interfaces or address, not both \(given.joined(separator: " and "))")
        }
        if target.configuration.proxy.map({ $0.applies(to: target.host) }) ?? false {
            throw value.error("source cannot be used with a proxy (the connection to the origin leaves from the proxy's network); set proxy: none on this target")
        }
        var sources: [ProbeSource] = []
        if let entry = source["interface"] {
            sources = [try probeSource(entry) { try ProbeSource(interface: $0) }]
        } else if let entry = source["address"] {
            let address = try probeSource(entry) { try ProbeSource(address: $0) }
            let isIPv6 = address.isIPv6 ?? false
            let literal = if case .address(let text) = address { text } else { "" }
            switch target.configuration.addressFamily {
            case .ipv4 where isIPv6: throw entry.error("source address \(literal) is IPv6 but the target has ip: 4")
            case .ipv6 where !isIPv6: throw entry.error("source address \(literal) is IPv4 but the target has ip: 6")
            default: target.configuration.addressFamily = isIPv6 ? .ipv6 : .ipv4
            }
            if let override = target.configuration.connectTo,
               !override.addresses.contains(where: { ConnectOverride.literal($0)?.isIPv6 == isIPv6 }) {
                throw entry.error("source address \(literal) is \(isIPv6 ? "IPv6" : "IPv4") but no connect_to address is")
            }
            sources = [address]
        } else if let entry = source["interfaces"] {
            let items = try entry.sequence()
            guard !items.isEmpty else { throw entry.error("interfaces needs at least one interface name") }
            for item in items {
                let next = try probeSource(item) { try ProbeSource(interface: $0) }
                if sources.contains(next) { throw item.error("\(next.interfaceName ?? "") is listed twice in interfaces") }
                sources.append(next)
            }
        }
        let addresses = target.configuration.connectTo?.addresses.count
            ?? (target.probesEachAddress ? Prober.maxAddressesPerProbe : 1)
        if sources.count * addresses > maxProbesPerTick {
            let what = target.configuration.connectTo != nil ? "\(addresses) connect_to addresses"
                : target.probesEachAddress ? "up to \(addresses) addresses (addresses: all)" : "1 address"
            throw value.error("\(sources.count) paths × \(what) = \(sources.count * addresses) probes per tick, "
                              + "more than \(maxProbesPerTick) (the limit); list fewer interfaces or addresses")
        }
        target.sources = sources
        target.configuration.source = sources.count == 1 ? sources[0] : nil
    }

    /// One entry made into a source, its error located at the entry.
    private static func probeSource(_ entry: ConfigValue, _ make: (String) throws -> ProbeSource) throws -> ProbeSource {
        let text = try entry.nonEmptyString()
        do {
            return try make(text)
        } catch let error as ProbeSourceError {
            throw entry.error(error.description)
        }
    }
}
