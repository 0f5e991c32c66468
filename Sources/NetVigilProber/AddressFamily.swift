/// Which addresses a probe may connect to.
public enum AddressFamily: String, Sendable, Codable {
    /// Any, ordered by `ProbeConfiguration.preferredFamily`, falling back to the next address when a connect fails.
    case any
    /// IPv4 only (`--ip4`).
    case ipv4
    /// IPv6 only (`--ip6`).
    case ipv6
}

/// Which family is tried first when both are allowed (`AddressFamily.any`).
public enum PreferredFamily: String, Sendable, Codable {
    /// getaddrinfo's order (RFC 6724 destination address selection, `/etc/gai.conf`).
    case system
    /// IPv4 addresses first, then IPv6 (`--prefer-ip4`).
    case ipv4
    /// IPv6 addresses first, then IPv4 (`--prefer-ip6`).
    case ipv6

    /// `addresses` reordered: the preferred family first, each family keeping getaddrinfo's order.
    public func ordered<Address>(_ addresses: [Address], isIPv6: (Address) -> Bool) -> [Address] {
        switch self {
        case .system: return addresses
        case .ipv4: return addresses.filter { !isIPv6($0) } + addresses.filter(isIPv6)
        case .ipv6: return addresses.filter(isIPv6) + addresses.filter { !isIPv6($0) }
        }
    }
}
