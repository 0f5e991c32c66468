import Foundation

/// How revocation is checked for one TLS policy (`revocation: off | soft | hard`, `crl: [FILE]`).
public struct RevocationPolicy: Sendable, Hashable {
    /// The mode (`soft` unless configured).
    public var mode: Mode
    /// CRLs loaded from `crl:` files, consulted before any distribution point.
    public var crls: [CertificateRevocationList]
    /// Whether CRL distribution points may be fetched (false for offline evaluation, e.g. `trust evaluate`).
    public var fetchesDistributionPoints: Bool
    /// `revocation_fetch: { allow_link_local: true }`: whether fetches (CRLs, OCSP) may connect to link-local and
    /// cloud instance-metadata addresses. Off: a certificate's URLs could otherwise make the daemon query the
    /// metadata service; private PKIs that publish CRLs on such addresses turn it on.
    public var allowsLinkLocalFetches = false

    /// `soft`, no files, distribution points fetched.
    public static let `default` = RevocationPolicy()

    public init(mode: Mode = .soft, crls: [CertificateRevocationList] = [], fetchesDistributionPoints: Bool = true) {
        self.mode = mode
        self.crls = crls
        self.fetchesDistributionPoints = fetchesDistributionPoints
    }
}

extension RevocationPolicy {
    /// What an unknown revocation status means.
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// No revocation checking.
        case off
        /// A revoked certificate fails; an unreachable, stale or oversized source is a finding.
        case soft
        /// A revoked certificate fails, and so does a certificate whose status cannot be learned (`revocationUnknown`).
        case hard
    }
}
