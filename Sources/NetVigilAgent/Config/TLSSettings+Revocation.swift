import NetVigilTrust

extension TLSSettings {
    /// Policy keys of revocation checking: `revocation: off | soft | hard` (default `soft`) and `crl: [FILE]`.
    static let revocationKeys = ["revocation", "crl"]

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
        return policy
    }
}
