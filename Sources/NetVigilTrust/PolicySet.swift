/// Policies selected by host pattern; the most specific matching pattern wins, else the default policy.
///
/// Specificity: an exact host beats any wildcard; among wildcards the longer domain (more labels) wins;
/// with equal domains `*.d` beats `**.d`. Two entries with the same pattern are refused.
public struct PolicySet: Sendable {
    /// One pattern and its policy.
    public struct Entry: Sendable {
        public let pattern: HostPattern
        public let policy: SecurityPolicy

        public init(pattern: HostPattern, policy: SecurityPolicy) {
            self.pattern = pattern
            self.policy = policy
        }
    }

    /// The policy for hosts no pattern matches.
    public let defaultPolicy: SecurityPolicy
    /// The entries in the order given.
    public let entries: [Entry]

    /// Builds a set; duplicate patterns are an error.
    public init(default defaultPolicy: SecurityPolicy = .default, entries: [Entry]) throws(HostPatternError) {
        var seen: Set<HostPattern> = []
        for entry in entries {
            guard seen.insert(entry.pattern).inserted else {
                throw HostPatternError(pattern: entry.pattern.description, problem: "appears twice in the policy set")
            }
        }
        self.defaultPolicy = defaultPolicy
        self.entries = entries
    }

    /// Builds a set from pattern strings.
    public init(default defaultPolicy: SecurityPolicy = .default, policies: [(pattern: String, policy: SecurityPolicy)]) throws(HostPatternError) {
        var entries: [Entry] = []
        for item in policies {
            entries.append(Entry(pattern: try HostPattern(item.pattern), policy: item.policy))
        }
        try self.init(default: defaultPolicy, entries: entries)
    }

    /// The most specific entry matching `host`, or nil when only the default applies.
    public func entry(for host: String) -> Entry? {
        var best: Entry? = nil
        for entry in entries where entry.pattern.matches(host) {
            if let current = best, !entry.pattern.isMoreSpecific(than: current.pattern) { continue }
            best = entry
        }
        return best
    }

    /// The policy for `host`.
    public func policy(for host: String) -> SecurityPolicy {
        entry(for: host)?.policy ?? defaultPolicy
    }
}
