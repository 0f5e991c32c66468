/// Which addresses a probe may connect to.
public enum AddressFamily: String, Sendable, Codable {
    /// Any, in getaddrinfo order, falling back to the next address on connect failure.
    case any
    /// IPv4 only (`--ip4`).
    case ipv4
    /// IPv6 only (`--ip6`).
    case ipv6
}
