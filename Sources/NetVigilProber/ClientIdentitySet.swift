import NetVigilTrust

/// Which client certificate goes to which host: host patterns (as in `tls_policies`) mapped to identities. An
/// exact pattern beats a wildcard, a longer wildcard a shorter one; a host no pattern matches gets none.
public struct ClientIdentitySet: Sendable {
    /// One pattern and its identity.
    public struct Entry: Sendable {
        public let pattern: HostPattern
        public let identity: ClientIdentity

        public init(pattern: HostPattern, identity: ClientIdentity) {
            self.pattern = pattern
            self.identity = identity
        }
    }

    /// The entries; a later entry with the same pattern replaces an earlier one.
    public private(set) var entries: [Entry]

    /// No client certificate for any host.
    public init() { entries = [] }

    /// Adds `identity` for `pattern`, replacing an entry with the same pattern.
    public mutating func set(_ identity: ClientIdentity, for pattern: HostPattern) {
        entries.removeAll { $0.pattern == pattern }
        entries.append(Entry(pattern: pattern, identity: identity))
    }

    /// The identity for `host`, nil when none applies.
    public func identity(for host: String) -> ClientIdentity? {
        var best: Entry? = nil
        for entry in entries where entry.pattern.matches(host) {
            guard let current = best else {
                best = entry
                continue
            }
            if Self.rank(entry.pattern) > Self.rank(current.pattern) { best = entry }
        }
        return best?.identity
    }

    /// Exact first, then more labels, then `*.` before `**.`.
    private static func rank(_ pattern: HostPattern) -> (Int, Int, Int) {
        (pattern.kind == .exact ? 1 : 0, pattern.labelCount, pattern.kind == .singleLabel ? 1 : 0)
    }
}
