import NetVigilProber
import NetVigilTrust

extension TLSPoliciesSection {
    /// The client certificates for one target: the entries' by their patterns, plus `own` for exactly `host` when
    /// the target sets its own (it replaces a shared one with the same exact pattern).
    func clientIdentities(host: String, own: ClientIdentity?) throws(HostPatternError) -> ClientIdentitySet {
        var set = ClientIdentitySet()
        for entry in entries {
            guard let identity = entry.clientIdentity else { continue }
            for pattern in entry.hosts { set.set(identity, for: pattern) }
        }
        if let own { set.set(own, for: try HostPattern(host)) }
        return set
    }
}

extension AgentConfiguration {
    /// Legal but risky settings found while loading (e.g. a client key others may read), each a located line;
    /// `check-config` prints them and the daemon logs them at start and on reload.
    public var warnings: [String] {
        tlsPolicies.warnings + targets.targets.flatMap(\.warnings)
    }
}
