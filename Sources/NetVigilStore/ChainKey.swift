/// A certificate chain as a dictionary key: its certificates' SHA-256 values in order (the stored fingerprint,
/// without building the joined string). Holding the records' array costs no copy.
struct ChainKey: Hashable, Sendable {
    let certificates: [CertificateRecord]

    init(_ certificates: [CertificateRecord]) {
        self.certificates = certificates
    }

    /// The stored form: the SHA-256 values joined with `:`.
    var fingerprint: String {
        certificates.map(\.sha256).joined(separator: ":")
    }

    static func == (lhs: ChainKey, rhs: ChainKey) -> Bool {
        guard lhs.certificates.count == rhs.certificates.count else { return false }
        for index in lhs.certificates.indices where lhs.certificates[index].sha256 != rhs.certificates[index].sha256 {
            return false
        }
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(certificates.count)
        for certificate in certificates { hasher.combine(certificate.sha256) }
    }
}
