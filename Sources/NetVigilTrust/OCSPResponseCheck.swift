import COpenSSL
import Foundation

/// Judges one DER OCSP response (stapled in the handshake or given with `--ocsp-response`) for a certificate of a
/// validated chain: signed by the issuer or by a responder the issuer delegated (id-kp-OCSPSigning), about this
/// certificate's ID, and fresh (thisUpdate ≤ now + 5 min; now - 5 min < nextUpdate, or thisUpdate within 7 days
/// when the response has no nextUpdate).
enum OCSPResponseCheck {
    /// What the response says.
    enum Answer {
        /// Good, and may be kept until then (nextUpdate, or thisUpdate + 7 days).
        case good(until: Date)
        case revoked(CertificateRevocation.Reason?, Date)
        /// The response cannot be used, and why.
        case unusable(String)
    }

    static let leeway: TimeInterval = 300
    static let maximumAgeWithoutNextUpdate: TimeInterval = 7 * 86_400

    /// `chain` is the validated chain (leaf → anchor); `index` the certificate the response is about.
    static func judge(_ der: Data, chain: [Certificate], index: Int, at date: Date) -> Answer {
        guard index + 1 < chain.count, let anchor = chain.last else { return .unusable("no issuer to check the response with") }
        let certificate = chain[index], issuer = chain[index + 1]
        guard let stack = cossl_sk_X509_new_null() else { return .unusable("out of memory") }
        defer { cossl_sk_X509_free(stack) }
        for member in chain.dropLast() { _ = cossl_sk_X509_push(stack, member.x509) }
        var reason: Int32 = -1
        var revokedAt: Int64 = 0, thisUpdate: Int64 = 0, nextUpdate: Int64 = -1
        let code = der.withUnsafeBytes { raw in
            cossl_ocsp_check(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, certificate.x509, issuer.x509,
                             stack, anchor.x509, &reason, &revokedAt, &thisUpdate, &nextUpdate)
        }
        switch code {
        case COSSL_OCSP_UNDECODABLE: return .unusable("the OCSP response does not decode")
        case COSSL_OCSP_NOT_SUCCESSFUL: return .unusable("the OCSP responder answered with an error status")
        case COSSL_OCSP_BAD_SIGNATURE:
            return .unusable("the OCSP response is not signed by \(issuer.subject) or a responder it delegated")
        case COSSL_OCSP_OTHER_CERTIFICATE: return .unusable("the OCSP response is about another certificate")
        default: break
        }
        let issued = Date(timeIntervalSince1970: TimeInterval(thisUpdate))
        guard issued <= date.addingTimeInterval(leeway) else {
            return .unusable("the OCSP response is not valid before \(issued.formatted(.iso8601))")
        }
        if nextUpdate >= 0 {
            let next = Date(timeIntervalSince1970: TimeInterval(nextUpdate))
            guard next > date.addingTimeInterval(-leeway) else {
                return .unusable("the OCSP response expired at \(next.formatted(.iso8601))")
            }
        } else if date.timeIntervalSince(issued) > maximumAgeWithoutNextUpdate {
            return .unusable("the OCSP response (no nextUpdate) was produced at \(issued.formatted(.iso8601)), over 7 days ago")
        }
        switch code {
        case COSSL_OCSP_GOOD:
            return .good(until: nextUpdate >= 0 ? Date(timeIntervalSince1970: TimeInterval(nextUpdate))
                                                : issued.addingTimeInterval(maximumAgeWithoutNextUpdate))
        case COSSL_OCSP_REVOKED:
            return .revoked(reason >= 0 ? CertificateRevocation.Reason(code: Int(reason)) : nil,
                            Date(timeIntervalSince1970: TimeInterval(revokedAt)))
        default: return .unusable("the OCSP responder does not know the certificate (status unknown)")
        }
    }
}
