import Foundation

/// One of the daemon's own listening sockets (the feed's), which a revocation fetch must never reach
/// (``RevocationFetchGuard``): a certificate's distribution point pointing there would make the daemon request its
/// own routes.
public struct OwnListener: Sendable, Equatable {
    /// The setting that configures it, for messages (`feed.listen`).
    public var name: String
    /// The address it binds: an IP literal, a wildcard (`0.0.0.0`, `::`) or `localhost`.
    public var host: String
    public var port: Int

    public init(name: String, host: String, port: Int) {
        self.name = name
        self.host = ConnectOverride.bare(host).lowercased()
        self.port = port
    }

    /// `HOST:PORT` as configured.
    public var address: String { RevocationFetchGuard.endpoint(host, port) }

    /// Whether a connection to `ip` (IPv4-mapped forms unmapped) on `port` reaches this listener: the same address,
    /// or any address of this host when it binds a wildcard; connecting to a wildcard reaches every local listener.
    func matches(_ ip: String, port: Int) -> Bool {
        guard port == self.port else { return false }
        let wildcard = ["0.0.0.0", "::", ""].contains(host)
        if ["0.0.0.0", "::"].contains(ip) { return true }
        if host == "localhost" { return Self.isLoopback(ip) }
        if !wildcard { return RevocationFetchGuard.unmapped(host) == ip || Self.same(host, ip) }
        return Self.isLoopback(ip) || Self.localAddresses().contains { Self.same($0, ip) }
    }

    static func isLoopback(_ ip: String) -> Bool { ip.hasPrefix("127.") || ip == "::1" }

    /// Whether two literals are the same address (IPv6 has many spellings).
    static func same(_ a: String, _ b: String) -> Bool {
        var x = in6_addr(), y = in6_addr()
        if inet_pton(AF_INET6, a, &x) == 1, inet_pton(AF_INET6, b, &y) == 1 {
            return withUnsafeBytes(of: x) { Array($0) } == withUnsafeBytes(of: y) { Array($0) }
        }
        return a == b
    }

    /// The addresses of this host's interfaces (getifaddrs), as literals.
    static func localAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            guard let address = entry.pointee.ifa_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            default: continue
            }
            let literal = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !literal.isEmpty { addresses.append(literal) }
        }
        return addresses
    }
}
