import NIOCore

/// curl's `--connect-to` for one host: hops to `host` connect to `addresses` instead of resolving it, while SNI,
/// the certificate host check and `Host` still come from the URL. Hops to other hosts (a redirect elsewhere)
/// resolve as usual.
public struct ConnectOverride: Sendable, Equatable, CustomStringConvertible {
    /// The host whose hops use the override (lower-case, no brackets).
    public let host: String
    /// IP literals, in the order they are tried (brackets removed).
    public let addresses: [String]

    /// An override for `host`; throws `.invalidAddress` naming the first entry that is not an IP literal.
    public init(host: String, addresses: [String]) throws(ConnectOverrideError) {
        self.host = Self.bare(host).lowercased()
        var literals: [String] = []
        for address in addresses {
            let bare = Self.bare(address)
            guard (try? SocketAddress(ipAddress: bare, port: 0)) != nil else { throw .invalidAddress(address) }
            if !literals.contains(bare) { literals.append(bare) }
        }
        guard !literals.isEmpty else { throw .empty }
        self.addresses = literals
    }

    /// Whether a hop to `host` uses the override.
    public func applies(to host: String) -> Bool { Self.bare(host).lowercased() == self.host }

    /// The socket addresses for `port`, restricted to `family`; throws a `dns` error when none is of that family.
    func socketAddresses(port: Int, family: AddressFamily) throws(ProbeError) -> [SocketAddress] {
        let all = addresses.compactMap { try? SocketAddress(ipAddress: $0, port: port) }
        let allowed = all.filter { address in
            switch family {
            case .any: true
            case .ipv4: address.protocol == .inet
            case .ipv6: address.protocol == .inet6
            }
        }
        guard !allowed.isEmpty else {
            throw ProbeError(.dns, "no connect_to address of \(host) is an \(family.rawValue) address")
        }
        return allowed
    }

    public var description: String { "\(host) → \(addresses.joined(separator: ", "))" }

    /// The canonical form of an IP literal (brackets allowed) and whether it is IPv6; nil for anything else.
    public static func literal(_ text: String) -> (canonical: String, isIPv6: Bool)? {
        guard let address = try? SocketAddress(ipAddress: bare(text), port: 0), let canonical = address.ipAddress else { return nil }
        return (canonical, address.protocol == .inet6)
    }

    /// `[::1]` → `::1`.
    static func bare(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    }
}

/// Why a `ConnectOverride` could not be made.
public enum ConnectOverrideError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An entry that is not an IPv4 or IPv6 literal.
    case invalidAddress(String)
    /// No address at all.
    case empty

    public var description: String {
        switch self {
        case .invalidAddress(let text): "\"\(text)\" is not an IP address (connect_to takes IPv4 or IPv6 literals such as 192.0.2.10 or 2001:db8::10)"
        case .empty: "connect_to needs at least one address"
        }
    }
}
