import NetVigilHTTP
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

    /// One entry: its patterns, the policy they select (nil when the entry only sets a client certificate) and
    /// the client certificate presented to them.
    public struct Entry: Sendable {
        public var hosts: [HostPattern]
        public var policy: SecurityPolicy?
        public var clientIdentity: ClientIdentity? = nil
    }

    public var entries: [Entry]
    /// Located warnings of the entries (a client key others may read).
    public var warnings: [String] = []

    public init() { entries = [] }

    /// Reads the list; a pattern may appear only once across all entries.
    init(reading value: ConfigValue) throws {
        entries = []
        var seen: Set<HostPattern> = []
        for item in try value.sequence() {
            let mapping = try item.mapping(allowedKeys: ["hosts"] + TLSSettings.policyKeys + TLSSettings.clientCertificateKeys)
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
            let policy = try TLSSettings.policy(from: mapping)
            let identity = try TLSSettings.clientIdentity(from: mapping, warnings: &warnings)
            guard policy != nil || identity != nil else {
                let keys = TLSSettings.policyKeys + TLSSettings.clientCertificateKeys.prefix(2)
                throw item.error("a TLS policy needs at least one of: \(keys.joined(separator: ", "))")
            }
            entries.append(Entry(hosts: hosts, policy: policy, clientIdentity: identity))
        }
    }

    /// The policy set for one target: these entries, plus `own` for exactly `host` when the target sets its own
    /// policy (it replaces a shared entry with the same exact pattern).
    func policySet(host: String, own: SecurityPolicy?) throws(HostPatternError) -> PolicySet {
        var list: [PolicySet.Entry] = []
        let exact = own == nil ? nil : try HostPattern(host)
        for entry in entries {
            guard let policy = entry.policy else { continue }
            for pattern in entry.hosts where pattern != exact {
                list.append(PolicySet.Entry(pattern: pattern, policy: policy))
            }
        }
        if let own, let exact { list.append(PolicySet.Entry(pattern: exact, policy: own)) }
        return try PolicySet(entries: list)
    }
}
