import NetVigilProber
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

    /// Reads one list; a pattern may appear only once across all entries.
    init(reading value: ConfigValue) throws {
        var collector = ConfigErrorCollector()
        try self.init(lists: [value], collector: &collector)
        try collector.finish()
    }

    /// Reads the lists of the main file and the included ones; each entry with an error is recorded and left out.
    /// A pattern may appear only once across all entries of all files.
    init(lists: [ConfigValue], collector: inout ConfigErrorCollector) throws {
        entries = []
        var seen: [HostPattern: ConfigValue] = [:]
        for list in lists {
            guard let items = try collector.attempt({ try list.sequence() }) else { continue }
            for item in items {
                if let entry = try collector.attempt({ try Self.entry(item, seen: &seen, warnings: &warnings) }) {
                    entries.append(entry)
                }
            }
        }
    }

    private static func entry(_ item: ConfigValue, seen: inout [HostPattern: ConfigValue], warnings: inout [String]) throws -> Entry {
        let mapping = try item.mapping(allowedKeys: ["hosts"] + TLSSettings.policyKeys + TLSSettings.clientCertificateKeys)
        let hostsValue = try mapping.required("hosts")
        var hosts: [(HostPattern, ConfigValue)] = []
        for hostValue in try hostsValue.sequenceOrSingle() {
            let text = try hostValue.nonEmptyString()
            let pattern: HostPattern
            do {
                pattern = try HostPattern(text)
            } catch {
                throw hostValue.error("\(error)")
            }
            if let first = seen[pattern] ?? hosts.first(where: { $0.0 == pattern })?.1 {
                throw hostValue.error("host pattern \"\(text)\" already has a policy (at \(first.location))")
            }
            hosts.append((pattern, hostValue))
        }
        let policy = try TLSSettings.policy(from: mapping)
        let identity = try TLSSettings.clientIdentity(from: mapping, warnings: &warnings)
        guard policy != nil || identity != nil else {
            let keys = TLSSettings.policyKeys + TLSSettings.clientCertificateKeys.prefix(2)
            throw item.error("a TLS policy needs at least one of: \(keys.joined(separator: ", "))")
        }
        for (pattern, value) in hosts { seen[pattern] = value }
        return Entry(hosts: hosts.map(\.0), policy: policy, clientIdentity: identity)
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
