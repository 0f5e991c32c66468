import COpenSSL
import Foundation
import NetVigilProbeModel

extension TrustFinding {
    /// What the chain does that a standard forbids but clients tolerate (warnings), or that one mainstream client
    /// would not survive while the others connect (errors): the `webpki` profile's tolerated rules and the client
    /// splits of docs/trust.md. Judged over the chain OpenSSL built when one validated (so the anchor is known and
    /// exempt), else over the served chain with its self-issued certificates exempt; reported at served positions.
    static func chainFindings(servedChain: [Certificate], validatedChain: [Certificate]) -> [TrustFinding] {
        guard let leaf = servedChain.first else { return [] }
        let judged = validatedChain.isEmpty ? servedChain : validatedChain
        let anchorDepth = validatedChain.isEmpty ? nil : WebPKIProfile.anchorDepth(of: validatedChain)
        let exempt = { (depth: Int) in
            depth == anchorDepth || (validatedChain.isEmpty && depth > 0 && judged[depth].isSelfIssued)
        }
        var violations: [ChainRuleViolation] = []
        for (depth, certificate) in judged.enumerated() where !exempt(depth) {
            violations += WebPKIProfile.structureViolations(certificate, at: depth)
            violations += WebPKIProfile.keyViolations(certificate, at: depth)
        }
        violations += WebPKIProfile.caConstraints(judged, anchorDepth: anchorDepth ?? judged.indices.last { exempt($0) })
        var findings: [TrustFinding] = []
        for violation in violations {
            guard let code = WebPKIProfile.toleratedRules[violation.rule],
                  let index = servedChain.firstIndex(of: judged[violation.depth]) else { continue }
            findings.append(TrustFinding(code: code, certificate: index, message: violation.detail + "; TLS clients accept it"))
        }
        let leafFlags = X509_get_extension_flags(leaf.x509)
        if leafFlags & UInt32(EXFLAG_KUSAGE) != 0, X509_get_key_usage(leaf.x509) & UInt32(KU_DIGITAL_SIGNATURE) == 0 {
            findings.append(TrustFinding(
                code: "e_sub_cert_key_usage_missing_digital_signature", certificate: 0,
                message: "the server certificate's keyUsage lacks digitalSignature, which TLS 1.3 and ECDHE handshakes need: GnuTLS clients refuse the handshake (OpenSSL, Go and NSS connect); add digitalSignature",
                severity: .error))
        }
        for (index, certificate) in servedChain.enumerated()
        where certificate.publicKey.algorithm == "Ed25519" || cossl_X509_signature_nid(certificate.x509) == NID_ED25519 {
            findings.append(TrustFinding(
                code: "e_ed25519_unsupported_by_nss", certificate: index,
                message: "it uses Ed25519, which NSS (Firefox, NSS-based clients) cannot verify in TLS: those clients refuse the chain (OpenSSL, Go, GnuTLS and rustls connect); serve an ECDSA P-256 or RSA chain for them",
                severity: .error))
            break
        }
        return findings
    }
}
