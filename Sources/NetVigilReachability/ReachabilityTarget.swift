import Foundation

/// What to watch, like AFNetworking's `sharedManager` / `managerForAddress:` / `managerForDomain:`.
public enum ReachabilityTarget: Hashable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// Is there any usable default route (IPv4 or IPv6)?
    case `default`
    /// An IPv4 or IPv6 address (numeric, normalized text form).
    case address(String)
    /// A host name, resolved with getaddrinfo; reachable when any of its addresses is.
    case host(String)

    /// Parses `default`, a numeric IPv4/IPv6 address, or a host name (RFC 1123 labels).
    public init(parsing text: String) throws(ReachabilityError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            throw .invalidTarget(text, reason: "empty; use default, an IP address or a host name")
        }
        if trimmed.lowercased() == "default" {
            self = .default
            return
        }
        if let address = IPAddress(trimmed) {
            self = .address(address.description)
            return
        }
        if trimmed.contains(":") || trimmed.contains("%") {
            throw .invalidTarget(text, reason: "not a valid IPv4/IPv6 address (zone suffixes are not supported)")
        }
        var name = trimmed.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if let problem = Self.hostNameProblem(name) {
            throw .invalidTarget(text, reason: problem)
        }
        if name.split(separator: ".").allSatisfy({ $0.allSatisfy(\.isNumber) }) {
            throw .invalidTarget(text, reason: "looks numeric but is not a valid IPv4 address")
        }
        self = .host(name)
    }

    /// `LosslessStringConvertible`: `nil` when `parsing:` would throw.
    public init?(_ description: String) {
        guard let target = try? ReachabilityTarget(parsing: description) else { return nil }
        self = target
    }

    /// `default`, the address, or the host name.
    public var description: String {
        switch self {
        case .default: "default"
        case let .address(address): address
        case let .host(host): host
        }
    }

    /// The parsed address of an `.address` target.
    public var ipAddress: IPAddress? {
        if case let .address(text) = self { return IPAddress(text) }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ReachabilityTarget(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func hostNameProblem(_ name: String) -> String? {
        if name.utf8.count > 253 { return "host name longer than 253 characters" }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            if label.isEmpty { return "empty label in host name" }
            if label.utf8.count > 63 { return "host name label longer than 63 characters" }
            if label.first == "-" || label.last == "-" { return "host name label starts or ends with '-'" }
            let allowed = label.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_"
            }
            if !allowed { return "not an IP address or host name (allowed: letters, digits, '-', '.')" }
        }
        return nil
    }
}
