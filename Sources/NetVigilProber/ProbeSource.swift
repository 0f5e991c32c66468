import NIOCore

/// The network path a probe's sockets take (`source:`): bound to one interface (`SO_BINDTODEVICE`) or to one
/// local address (`bind()` before `connect()`). Name resolution is not bound; only the connections are.
public enum ProbeSource: Sendable, Hashable, CustomStringConvertible {
    /// Leave through this interface (`eth0`, `wwan0`, ...) whatever the routing table prefers.
    case interface(String)
    /// Connect from this local IP address (canonical form, no brackets); the kernel picks the route for it.
    case address(String)

    /// Longest interface name Linux accepts (`IFNAMSIZ` - 1).
    public static let maxInterfaceNameLength = 15

    /// A source bound to interface `name`; throws when the name cannot be a Linux interface name.
    public init(interface name: String) throws(ProbeSourceError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxInterfaceNameLength, name != ".", name != "..",
              !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") || $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .invalidInterface(name)
        }
        self = .interface(name)
    }

    /// A source bound to the IP literal `text` (brackets allowed); throws when it is not one.
    public init(address text: String) throws(ProbeSourceError) {
        guard let literal = ConnectOverride.literal(text) else { throw .invalidAddress(text) }
        self = .address(literal.canonical)
    }

    /// The interface name of an `.interface` source.
    public var interfaceName: String? {
        if case .interface(let name) = self { return name }
        return nil
    }

    /// Whether an `.address` source is IPv6 (nil for an interface, which carries both families).
    public var isIPv6: Bool? {
        guard case .address(let text) = self else { return nil }
        return ConnectOverride.literal(text)?.isIPv6
    }

    /// `interface eth0` / `address 192.0.2.7`.
    public var description: String {
        switch self {
        case .interface(let name): "interface \(name)"
        case .address(let address): "address \(address)"
        }
    }
}

/// Why a `ProbeSource` could not be made.
public enum ProbeSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a possible Linux interface name.
    case invalidInterface(String)
    /// Not an IP literal.
    case invalidAddress(String)

    public var description: String {
        switch self {
        case .invalidInterface(let name):
            "\"\(name)\" is not an interface name (1 to \(ProbeSource.maxInterfaceNameLength) characters, no '/', ':' or spaces)"
        case .invalidAddress(let text):
            "\"\(text)\" is not an IP address (source address takes an IPv4 or IPv6 literal such as 192.0.2.7 or 2001:db8::7)"
        }
    }
}
