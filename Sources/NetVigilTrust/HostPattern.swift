/// A host pattern selecting a policy: `www.example.com` (exact), `*.example.com` (exactly one more label),
/// `**.example.com` (any number of labels, including none: the bare domain matches too).
///
/// Matching is case-insensitive and ignores one trailing dot.
public struct HostPattern: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The three forms.
    public enum Kind: Sendable, Hashable {
        case exact
        case singleLabel
        case anyDepth
    }

    /// Which form.
    public let kind: Kind
    /// The host (exact) or the domain under the wildcard, lower-cased.
    public let domain: String

    /// Parses a pattern; the error names what is wrong.
    public init(_ text: String) throws(HostPatternError) {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasSuffix(".") { value.removeLast() }
        let kind: Kind
        if value.hasPrefix("**.") {
            kind = .anyDepth
            value.removeFirst(3)
        } else if value.hasPrefix("*.") {
            kind = .singleLabel
            value.removeFirst(2)
        } else {
            kind = .exact
        }
        guard !value.isEmpty else { throw HostPatternError(pattern: text, problem: "no domain after the wildcard") }
        let labels = value.split(separator: ".", omittingEmptySubsequences: false)
        if labels.contains(where: \.isEmpty) {
            throw HostPatternError(pattern: text, problem: "empty label")
        }
        if value.contains("*") {
            throw HostPatternError(pattern: text, problem: "a wildcard is only allowed as the whole first label (*. or **.)")
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_:[]")
        if labels.contains(where: { label in label.contains { !allowed.contains($0) } }) {
            throw HostPatternError(pattern: text, problem: "invalid character in a host name")
        }
        self.kind = kind
        self.domain = value
    }

    /// Number of labels of `domain`: more labels = more specific.
    public var labelCount: Int { domain.split(separator: ".").count }

    /// True when `host` is selected by this pattern.
    public func matches(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        switch kind {
        case .exact:
            return host == domain
        case .singleLabel:
            guard host.hasSuffix("." + domain) else { return false }
            let prefix = host.dropLast(domain.count + 1)
            return !prefix.isEmpty && !prefix.contains(".")
        case .anyDepth:
            return host == domain || (host.hasSuffix("." + domain) && host.count > domain.count + 1)
        }
    }

    /// Orders candidate matches: exact beats wildcards; then more labels; then `*.` beats `**.`.
    func isMoreSpecific(than other: HostPattern) -> Bool {
        if (kind == .exact) != (other.kind == .exact) { return kind == .exact }
        if labelCount != other.labelCount { return labelCount > other.labelCount }
        return kind == .singleLabel && other.kind == .anyDepth
    }

    public var description: String {
        switch kind {
        case .exact: return domain
        case .singleLabel: return "*." + domain
        case .anyDepth: return "**." + domain
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try HostPattern(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A host pattern that cannot be parsed, or a set with a duplicate pattern.
public struct HostPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    /// What is wrong.
    public let problem: String

    public var description: String { "host pattern \"\(pattern)\": \(problem)" }
}
