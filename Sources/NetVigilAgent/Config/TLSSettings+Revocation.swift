import NetVigilTrust

extension TLSSettings {
    /// Policy keys of revocation checking: `revocation: off | soft | hard` (default `soft`), `crl: [FILE]` and
    /// `revocation_fetch: { allow_link_local: BOOL }`.
    static let revocationKeys = ["revocation", "crl", "revocation_fetch"]
    /// Keys of `revocation_fetch:`.
    static let revocationFetchKeys = ["allow_link_local"]

    /// The revocation settings of a policy mapping; the CRL files are read (and their size checked) now.
    static func revocation(from mapping: ConfigMapping) throws -> RevocationPolicy {
        var policy = RevocationPolicy.default
        if let item = mapping["revocation"] {
            policy.mode = RevocationPolicy.Mode(rawValue: try item.oneOf(RevocationPolicy.Mode.allCases.map(\.rawValue))) ?? .soft
        }
        if let item = mapping["crl"] {
            for entry in try item.sequenceOrSingle() {
                let path = try entry.filePath()
                // Missing, unreadable and non-regular files get the reason in words, not Foundation's sentence.
                try entry.requireRegularFile(path, failure: "cannot read CRL \(path)")
                do {
                    policy.crls += try CertificateRevocationList.load(path: path)
                } catch {
                    throw entry.error("\(error)")
                }
            }
        }
        if let item = mapping["revocation_fetch"] {
            let fetch = try item.mapping(allowedKeys: revocationFetchKeys)
            if let allow = fetch["allow_link_local"] { policy.allowsLinkLocalFetches = try allow.bool() }
        }
        return policy
    }
}
