import NetVigilProber

extension TargetsSection {
    /// Addresses one target may list in `connect_to:`.
    static let maxConnectToAddresses = 16

    /// Reads `addresses: first | all` and `connect_to: [ADDR, ...]` once the target's `ip:` and proxy are known:
    /// each `connect_to` entry must be an IP literal of an allowed family, listed once; neither key goes with a
    /// proxy (the proxy connects to the origin).
    static func applyAddresses(to target: inout ProbeTarget, mapping: ConfigMapping) throws {
        let proxied = target.configuration.proxy.map { $0.applies(to: target.host) } ?? false
        if let value = mapping["addresses"] {
            target.probesEachAddress = try value.oneOf(["first", "all"]) == "all"
            if target.probesEachAddress, proxied {
                throw value.error("addresses: all cannot be used with a proxy (the proxy resolves and connects to the origin); set proxy: none on this target")
            }
        }
        guard let value = mapping["connect_to"] else { return }
        if proxied {
            throw value.error("connect_to cannot be used with a proxy (the proxy connects to the origin); set proxy: none on this target")
        }
        let entries = try value.sequenceOrSingle()
        guard !entries.isEmpty else { throw value.error("connect_to needs at least one address") }
        guard entries.count <= maxConnectToAddresses else {
            throw entries[maxConnectToAddresses].error("at most \(maxConnectToAddresses) connect_to addresses (the limit)")
        }
        var seen: [String] = []
        for entry in entries {
            let text = try entry.nonEmptyString()
            guard let (canonical, isIPv6) = ConnectOverride.literal(text) else {
                throw entry.error(ConnectOverrideError.invalidAddress(text).description)
            }
            switch target.configuration.addressFamily {
            case .ipv4 where isIPv6: throw entry.error("\(text) is an IPv6 address but the target has ip: 4")
            case .ipv6 where !isIPv6: throw entry.error("\(text) is an IPv4 address but the target has ip: 6")
            default: break
            }
            guard !seen.contains(canonical) else {
                throw entry.error("\(text) is listed twice in connect_to")
            }
            seen.append(canonical)
        }
        do {
            target.configuration.connectTo = try ConnectOverride(host: target.host, addresses: seen)
        } catch {
            throw value.error(error.description)
        }
    }
}
