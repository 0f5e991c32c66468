#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as raw network-order bytes.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Address family with the kernel's values.
    public enum Family: UInt8, Sendable, Hashable, Codable, CustomStringConvertible {
        case ipv4 = 2
        case ipv6 = 10

        /// `ipv4` or `ipv6`.
        public var description: String { self == .ipv4 ? "ipv4" : "ipv6" }
        /// Address length in bytes.
        public var byteCount: Int { self == .ipv4 ? 4 : 16 }
    }

    public let family: Family
    /// 4 or 16 bytes, network order.
    public let bytes: [UInt8]

    /// Creates an address from raw bytes; `bytes` must hold at least `family.byteCount` bytes.
    public init(family: Family, bytes: some Collection<UInt8>) {
        self.family = family
        self.bytes = Array(bytes.prefix(family.byteCount))
    }

    /// Parses a numeric IPv4 or IPv6 address (no host names, no zone suffix).
    public init?(_ string: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            self.init(family: .ipv4, bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, string, &v6) == 1 {
            self.init(family: .ipv6, bytes: withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// True for fe80::/10.
    public var isIPv6LinkLocal: Bool { family == .ipv6 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80 }

    /// The textual form (`inet_ntop`).
    public var description: String {
        var out = [CChar](repeating: 0, count: 64)
        let af = family == .ipv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(af, raw.baseAddress, &out, socklen_t(out.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        if lhs.family != rhs.family { return lhs.family.rawValue < rhs.family.rawValue }
        return lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension IPAddress {
    /// Reads `family.byteCount` bytes out of a fixed-size C array (a tuple of `UInt8`).
    init<T>(family: Family, tuple: T) {
        var copy = tuple
        self.init(family: family, bytes: withUnsafeBytes(of: &copy) { Array($0) })
    }
}
