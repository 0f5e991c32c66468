import COpenSSL
import Foundation
import NetVigilProbeModel

extension TrustFinding {
    /// The Baseline Requirements checks netvigil runs on a served chain (leaf first; the anchor is not served). They
    /// apply to chains that end at a publicly-trusted root only: a private CA is not bound by the BRs.
    static func baselineRequirements(servedChain: [Certificate]) -> [TrustFinding] {
        guard let leaf = servedChain.first else { return [] }
        var findings: [TrustFinding] = []
        let names = leaf.rawSubjectAlternativeNames
        if let commonName = leaf.commonName, !names.isEmpty {
            let matches = names.contains { name in
                switch name {
                case .dns(let text): return text.caseInsensitiveCompare(commonName) == .orderedSame
                case .ip(let bytes): return WebPKIProfile.addressBytes(commonName) == bytes
                case .other: return false
                }
            }
            if !matches {
                findings.append(TrustFinding(code: "e_subject_common_name_not_from_san", certificate: 0,
                                             message: "the commonName \(commonName) is not one of the subjectAltNames (BR 7.1.4.3)"))
            }
        }
        if X509_get0_subject_key_id(leaf.x509) == nil {
            findings.append(TrustFinding(code: "w_ext_subject_key_identifier_missing_sub_cert", certificate: 0,
                                         message: "the server certificate has no subjectKeyIdentifier (RFC 5280 4.2.1.2 recommends one)"))
        }
        let days = leaf.notAfter.timeIntervalSince(leaf.notBefore) / 86_400
        if days > 398 {
            findings.append(TrustFinding(code: "e_tls_server_cert_valid_time_longer_than_398_days", certificate: 0,
                                         message: "the server certificate is valid for \(Int(days.rounded())) days; BR 6.3.2 allows at most 398"))
        }
        if X509_get_extension_flags(leaf.x509) & UInt32(EXFLAG_XKUSAGE) == 0 {
            findings.append(TrustFinding(code: "e_sub_cert_eku_missing", certificate: 0,
                                         message: "the server certificate has no extendedKeyUsage; BR 7.1.2.3 requires serverAuth"))
        }
        var critical: Int32 = 0
        if let policies = X509_get_ext_d2i(leaf.x509, NID_certificate_policies, &critical, nil) {
            CERTIFICATEPOLICIES_free(OpaquePointer(policies))
        } else {
            cossl_clear_errors()
            findings.append(TrustFinding(code: "e_sub_cert_certificate_policies_missing", certificate: 0,
                                         message: "the server certificate has no certificatePolicies (BR 7.1.2.3)"))
        }
        return findings
    }
}
