import NetVigilTrust

/// `tls_policies:` — shared pin sets chosen by host pattern, for every target and every redirect hop.
///
/// ```yaml
/// tls_policies:
///   - hosts: [api.example.com, "*.cdn.example.com"]
///     pinning: publicKey
///     pins: [sha256/AAAA..., sha256/BBBB...]
/// ```
public struct TLSPoliciesSection: Sendable {
    public static let key = "tls_policies"

    /// One entry: its patterns and the policy they select.
    public struct Entry: Sendable {
        public var hosts: [HostPattern]
        public var policy: SecurityPolicy
    }

    public var entries: [Entry]

    public init() { entries = [] }

    /// Reads the list; a pattern may appear only once across all entries.
    init(reading value: ConfigValue) throws {
        entries = []
        var seen: Set<HostPattern> = []
        for item in try value.sequence() {
            let mapping = try item.mapping(allowedKeys: ["hosts"] + TLSSettings.policyKeys)
            let hostsValue = try mapping.required("hosts")
            var hosts: [HostPattern] = []
            for hostValue in try hostsValue.sequenceOrSingle() {
                let text = try hostValue.nonEmptyString()
                let pattern: HostPattern
                do {
                    pattern = try HostPattern(text)
                } catch {
                    throw hostValue.error("\(error)")
                }
                guard seen.insert(pattern).inserted else {
                    throw hostValue.error("host pattern \"\(text)\" already has a policy")
                }
                hosts.append(pattern)
            }
            guard let policy = try TLSSettings.policy(from: mapping) else {
                throw item.error("a TLS policy needs at least one of: \(TLSSettings.policyKeys.joined(separator: ", "))")
            }
            entries.append(Entry(hosts: hosts, policy: policy))
        }
    }

    /// The policy set for one target: these entries, plus `own` for exactly `host` when the target sets its own
    /// policy (it replaces a shared entry with the same exact pattern).
    func policySet(host: String, own: SecurityPolicy?) throws(HostPatternError) -> PolicySet {
        var list: [PolicySet.Entry] = []
        let exact = own == nil ? nil : try HostPattern(host)
        for entry in entries {
            for pattern in entry.hosts where pattern != exact {
                list.append(PolicySet.Entry(pattern: pattern, policy: entry.policy))
            }
        }
        if let own, let exact { list.append(PolicySet.Entry(pattern: exact, policy: own)) }
        return try PolicySet(entries: list)
    }
}
