#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, stored inline (no heap allocation) as two big-endian words.
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
    /// Bytes 0–7 in network order as a number (IPv4: bytes 0–3 in the high half, the low half zero).
    private let high: UInt64
    /// Bytes 8–15 (zero for IPv4).
    private let low: UInt64

    /// 4 or 16 bytes, network order.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Creates an address from raw bytes; `bytes` must hold at least `family.byteCount` bytes.
    public init(family: Family, bytes: some Collection<UInt8>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (offset, byte) in bytes.prefix(family.byteCount).enumerated() {
            if offset < 8 {
                high |= UInt64(byte) << (56 - 8 * UInt64(offset))
            } else {
                low |= UInt64(byte) << (56 - 8 * UInt64(offset - 8))
            }
        }
        self.init(family: family, high: high, low: low)
    }

    private init(family: Family, high: UInt64, low: UInt64) {
        self.family = family
        self.high = high
        self.low = low
    }

    /// Reads `family.byteCount` bytes in network order from `pointer` (no allocation).
    init(family: Family, pointer: UnsafeRawPointer) {
        switch family {
        case .ipv4:
            let word = UInt32(bigEndian: pointer.loadUnaligned(as: UInt32.self))
            self.init(family: family, high: UInt64(word) << 32, low: 0)
        case .ipv6:
            self.init(
                family: family, high: UInt64(bigEndian: pointer.loadUnaligned(as: UInt64.self)),
                low: UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// Parses a numeric IPv4 or IPv6 address (no host names, no zone suffix).
    public init?(_ string: String) {
        var v6 = in6_addr()
        if inet_pton(AF_INET, string, &v6) == 1 {
            self = Swift.withUnsafeBytes(of: &v6) { IPAddress(family: .ipv4, pointer: $0.baseAddress!) }
            return
        }
        if inet_pton(AF_INET6, string, &v6) == 1 {
            self = Swift.withUnsafeBytes(of: &v6) { IPAddress(family: .ipv6, pointer: $0.baseAddress!) }
            return
        }
        return nil
    }

    /// Calls `body` with the `family.byteCount` bytes in network order (no allocation).
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var words = (high.bigEndian, low.bigEndian)
        return try Swift.withUnsafeBytes(of: &words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(family.byteCount))) }
    }

    /// True for fe80::/10.
    public var isIPv6LinkLocal: Bool { family == .ipv6 && high >> 54 == 0x3fa }

    /// The textual form (`inet_ntop`).
    public var description: String {
        // INET6_ADDRSTRLEN is 46; a tuple on the stack instead of an array.
        var out: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let af = family == .ipv4 ? AF_INET : AF_INET6
        return Swift.withUnsafeMutableBytes(of: &out) { text in
            let ok = withUnsafeBytes { raw in
                inet_ntop(af, raw.baseAddress, text.baseAddress!.assumingMemoryBound(to: CChar.self),
                          socklen_t(text.count)) != nil
            }
            guard ok else { return "?" }
            let length = text.firstIndex(of: 0) ?? text.count
            return String(decoding: UnsafeRawBufferPointer(rebasing: text[..<length]), as: UTF8.self)
        }
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        if lhs.family != rhs.family { return lhs.family.rawValue < rhs.family.rawValue }
        return (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

extension IPAddress {
    /// Reads `family.byteCount` bytes out of a fixed-size C array (a tuple of `UInt8`), without allocating.
    init<T>(family: Family, tuple: T) {
        var copy = tuple
        self = Swift.withUnsafeBytes(of: &copy) { IPAddress(family: family, pointer: $0.baseAddress!) }
    }
}
