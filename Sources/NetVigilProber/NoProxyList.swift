import Foundation

/// `no_proxy`: the hosts a proxied probe reaches directly. Entries are host name suffixes (`example.com` matches it
/// and every subdomain; a leading `.` or `*.` changes nothing), IP addresses, CIDR blocks (`10.0.0.0/8`,
/// `fd00::/8`) or `*` (everything). Names are compared as text: a name is never resolved to match an address entry.
public struct NoProxyList: Sendable, Hashable, CustomStringConvertible {
    enum Entry: Sendable, Hashable {
        case everything
        case suffix(String)
        case network(bytes: [UInt8], prefixLength: Int)
    }

    private(set) var entries: [Entry] = []
    /// The entries as given (for descriptions).
    public private(set) var texts: [String] = []

    /// An empty list.
    public init() {}

    /// Parses the entries; throws on the first one that is none of the forms above.
    public init(_ items: [String]) throws(ProxyConfigurationError) {
        for item in items {
            entries.append(try Self.entry(item))
            texts.append(item)
        }
    }

    /// Whether the list is empty.
    public var isEmpty: Bool { entries.isEmpty }

    public var description: String { "[\(texts.joined(separator: ", "))]" }

    /// Whether `host` (a name or an IP literal, brackets allowed) is reached directly.
    public func matches(_ host: String) -> Bool {
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        if bare.hasSuffix(".") { bare.removeLast() }
        let address = Self.addressBytes(bare)
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .suffix(let suffix):
                return bare == suffix || bare.hasSuffix("." + suffix)
            case .network(let bytes, let prefixLength):
                guard let address, address.count == bytes.count else { return false }
                return Self.prefix(of: address, length: prefixLength) == Self.prefix(of: bytes, length: prefixLength)
            }
        }
    }

    private static func entry(_ item: String) throws(ProxyConfigurationError) -> Entry {
        var text = item.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty, !ProxyCredentials.hasControlCharacter(text) else { throw .invalidNoProxyEntry(item) }
        if text == "*" { return .everything }
        if let slash = text.firstIndex(of: "/") {
            let addressText = String(text[..<slash]), lengthText = String(text[text.index(after: slash)...])
            guard let bytes = addressBytes(addressText), let length = Int(lengthText), (0...bytes.count * 8).contains(length) else {
                throw .invalidNoProxyEntry(item)
            }
            return .network(bytes: bytes, prefixLength: length)
        }
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let bytes = addressBytes(text) { return .network(bytes: bytes, prefixLength: bytes.count * 8) }
        if text.hasPrefix("*.") { text.removeFirst(2) } else if text.hasPrefix(".") { text.removeFirst() }
        if text.hasSuffix(".") { text.removeLast() }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-_".utf8)
        guard !text.isEmpty, text.utf8.allSatisfy({ allowed.contains($0) }), !text.hasPrefix("."), !text.contains("..") else {
            throw .invalidNoProxyEntry(item)
        }
        return .suffix(text)
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 literal; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func prefix(of bytes: [UInt8], length: Int) -> [UInt8] {
        var result = Array(bytes.prefix(length / 8))
        if length % 8 != 0 { result.append(bytes[length / 8] & UInt8(0xFF << (8 - length % 8) & 0xFF)) }
        return result
    }
}
