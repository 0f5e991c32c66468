import Foundation

/// A certificate of the validated chain that its issuer revoked: what the `revoked` reason carries.
public struct CertificateRevocation: Sendable, Hashable, Codable {
    /// CRLReason (RFC 5280 section 5.3.1), by its ASN.1 name.
    public enum Reason: String, Sendable, Hashable, Codable {
        case unspecified, keyCompromise, cACompromise, affiliationChanged, superseded, cessationOfOperation,
             certificateHold, removeFromCRL, privilegeWithdrawn, aACompromise

        /// The reason of code `code`; nil for unassigned codes (7, > 10).
        init?(code: Int) {
            let all: [Reason?] = [.unspecified, .keyCompromise, .cACompromise, .affiliationChanged, .superseded,
                                  .cessationOfOperation, .certificateHold, nil, .removeFromCRL, .privilegeWithdrawn, .aACompromise]
            guard all.indices.contains(code), let reason = all[code] else { return nil }
            self = reason
        }
    }

    /// Index in the validated chain (0 = leaf).
    public let certificate: Int
    /// Subject of the revoked certificate, one line.
    public let subject: String
    /// Serial number, upper-case hex.
    public let serial: String
    /// The CRL entry's reason code; nil when the entry has none.
    public let reason: Reason?
    /// When the issuer says the certificate was revoked.
    public let revokedAt: Date
    /// The CRL file or URL (or OCSP responder) that said so.
    public let source: String

    enum CodingKeys: String, CodingKey {
        case certificate, subject, serial, reason, source
        case revokedAt = "revoked_at"
    }

    public var message: String {
        "certificate \(certificate) (\(subject), serial \(serial)) was revoked at \(revokedAt.formatted(.iso8601))"
            + " (reason: \(reason?.rawValue ?? "none given"); source: \(source))"
    }
}
