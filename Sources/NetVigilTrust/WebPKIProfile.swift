import COpenSSL
import Foundation

/// The rules of the `webpki` and `strict` profiles over a chain OpenSSL built and accepted, each rule family with its
/// own `ServerTrustFailureReason`. The trust anchor is judged as rustls-webpki judges one: a key and a name (plus its
/// name constraints and pathLenConstraint), never its other extensions.
///
/// A few rules are standards violations that mainstream clients tolerate (`toleratedRules`): `webpki` reports them as
/// findings (`TrustFinding.chainFindings`), `strict` refuses them. The table of rules and the clients they follow is in
/// docs/trust.md.
enum WebPKIProfile {
    /// Rules that RFC 5280 or the Baseline Requirements state but Chrome, NSS, Go, GnuTLS and OpenSSL's default
    /// verification do not enforce, each with the code of the finding `webpki` reports instead (zlint's names where
    /// zlint has the lint).
    static let toleratedRules: [String: String] = [
        "authority_key_identifier_missing": "e_ext_authority_key_identifier_missing",
        "subject_key_identifier_missing_ca": "e_ext_subject_key_identifier_missing_ca",
        "ca_basic_constraints_not_critical": "e_basic_constraints_not_critical",
        "ca_key_usage_missing": "e_ca_key_usage_missing",
        "rsa_modulus_not_multiple_of_8": "e_rsa_mod_not_multiple_of_8",
    ]

    /// The first rule `chain` (leaf → anchor) breaks that `profile` refuses, nil when it keeps them all.
    /// - Parameter host: checked against the leaf's subjectAltNames only; nil skips the host check.
    static func check(chain: [Certificate], host: HostCheck?, profile: ValidationProfile) -> ServerTrustFailureReason? {
        guard let leaf = chain.first else { return nil }
        let refuses = { (violation: ChainRuleViolation) in profile == .strict || toleratedRules[violation.rule] == nil }
        let anchorDepth = anchorDepth(of: chain)
        for (depth, certificate) in chain.enumerated() where depth != anchorDepth {
            if let violation = structureViolations(certificate, at: depth).first(where: refuses) { return .malformedCertificate(violation) }
            if let violation = keyViolations(certificate, at: depth).first(where: refuses) { return .weakKey(violation) }
            if let violation = signature(certificate, at: depth) { return .weakSignature(violation) }
        }
        if let violation = caConstraints(chain, anchorDepth: anchorDepth).first(where: refuses) { return .caConstraintViolation(violation) }
        if let violation = extendedKeyUsage(chain, anchorDepth: anchorDepth) { return .extendedKeyUsageViolation(violation) }
        if let violation = nameConstraints(chain) { return .nameConstraintViolation(violation) }
        return serverIdentity(leaf, host: host)
    }

    /// The anchor's place in a built chain; nil for a one-certificate chain, a pinned leaf used as its own anchor, which
    /// is judged as a leaf.
    static func anchorDepth(of chain: [Certificate]) -> Int? {
        chain.count > 1 ? chain.count - 1 : nil
    }

    // MARK: - Structure

    /// The first of `structureViolations`.
    static func structure(_ certificate: Certificate, at depth: Int) -> ChainRuleViolation? {
        structureViolations(certificate, at: depth).first
    }

    /// Serial number, duplicate and undecodable extensions, key identifiers.
    static func structureViolations(_ certificate: Certificate, at depth: Int) -> [ChainRuleViolation] {
        let x509 = certificate.x509
        if let serial = X509_get0_serialNumber(x509) {
            let length = Int(ASN1_STRING_length(serial))
            let bytes = ASN1_STRING_get0_data(serial).map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            if ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER {
                return [ChainRuleViolation(certificate, at: depth, rule: "serial_negative",
                                           "the serial number is negative; RFC 5280 requires a positive serial: reissue the certificate")]
            }
            if bytes.allSatisfy({ $0 == 0 }) {
                return [ChainRuleViolation(certificate, at: depth, rule: "serial_zero",
                                           "the serial number is zero; RFC 5280 requires a positive serial: reissue the certificate")]
            }
            let octets = bytes.count + ((bytes.first ?? 0) & 0x80 != 0 ? 1 : 0)
            if octets > 20 {
                return [ChainRuleViolation(certificate, at: depth, rule: "serial_too_long",
                                           "the serial number is \(octets) octets long; RFC 5280 allows at most 20: reissue the certificate")]
            }
        }
        var seen: Set<String> = []
        for index in 0..<X509_get_ext_count(x509) {
            guard let object = X509_EXTENSION_get_object(X509_get_ext(x509, index)) else { continue }
            let oid = objectText(object)
            if !seen.insert(oid).inserted {
                return [ChainRuleViolation(certificate, at: depth, rule: "extension_duplicated",
                                            "the extension \(oid) appears more than once; RFC 5280 allows each extension once")]
            }
        }
        let flags = X509_get_extension_flags(x509)
        if flags & UInt32(EXFLAG_INVALID) != 0 {
            return [ChainRuleViolation(certificate, at: depth, rule: "extension_malformed",
                                        "an extension (basicConstraints, keyUsage, extendedKeyUsage, key identifiers, subjectAltName or nameConstraints) cannot be decoded")]
        }
        for (nid, name) in [(NID_info_access, "authorityInfoAccess"), (NID_crl_distribution_points, "cRLDistributionPoints"),
                            (NID_certificate_policies, "certificatePolicies")] where !decodes(x509, nid) {
            return [ChainRuleViolation(certificate, at: depth, rule: "extension_malformed",
                                        "the \(name) extension cannot be decoded")]
        }
        // A v1 certificate has no extensions at all; `caConstraints` refuses it as an issuer.
        guard X509_get_version(x509) >= 2 else { return [] }
        var violations: [ChainRuleViolation] = []
        let selfIssued = flags & UInt32(EXFLAG_SI) != 0
        if !selfIssued, X509_get0_authority_key_id(x509) == nil {
            violations.append(ChainRuleViolation(certificate, at: depth, rule: "authority_key_identifier_missing",
                                                 "the authorityKeyIdentifier extension is missing; RFC 5280 4.2.1.1 requires it in every certificate not issued by itself"))
        }
        if depth > 0, flags & UInt32(EXFLAG_CA) != 0, X509_get0_subject_key_id(x509) == nil {
            violations.append(ChainRuleViolation(certificate, at: depth, rule: "subject_key_identifier_missing_ca",
                                                 "the CA certificate has no subjectKeyIdentifier extension; RFC 5280 4.2.1.2 requires it in CA certificates"))
        }
        return violations
    }

    /// False when the extension `nid` is present but does not decode.
    private static func decodes(_ x509: OpaquePointer, _ nid: Int32) -> Bool {
        var critical: Int32 = 0
        let decoded = X509_get_ext_d2i(x509, nid, &critical, nil)
        defer { cossl_clear_errors() }
        guard let decoded else { return critical == -1 }
        switch nid {
        case NID_info_access: AUTHORITY_INFO_ACCESS_free(OpaquePointer(decoded))
        case NID_crl_distribution_points: CRL_DIST_POINTS_free(OpaquePointer(decoded))
        default: CERTIFICATEPOLICIES_free(OpaquePointer(decoded))
        }
        return true
    }

    static func objectText(_ object: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 0)
        guard length > 0 else { return "unknown" }
        return String(decoding: buffer.prefix(Int(min(length, 127))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Keys and signatures

    /// RSA ≥ 2048 bits (a multiple of 8), ECDSA P-256/P-384, Ed25519; nothing else.
    static func keyViolations(_ certificate: Certificate, at depth: Int) -> [ChainRuleViolation] {
        let key = certificate.publicKey
        switch key.algorithm {
        case "RSA":
            if key.bits < 2048 {
                return [ChainRuleViolation(certificate, at: depth, rule: "rsa_key_too_small",
                                           "the RSA key has \(key.bits) bits; browsers require at least 2048: issue a new key")]
            }
            if key.bits % 8 != 0 {
                return [ChainRuleViolation(certificate, at: depth, rule: "rsa_modulus_not_multiple_of_8",
                                           "the RSA modulus has \(key.bits) bits, not a multiple of 8 (Baseline Requirements 6.1.5): issue a new key")]
            }
        case "EC":
            guard let curve = key.curve, curve == "P-256" || curve == "P-384" else {
                return [ChainRuleViolation(certificate, at: depth, rule: "ec_curve_not_allowed",
                                           "the EC key is on \(key.curve ?? "explicit parameters"); browsers accept only P-256 and P-384: issue a new key")]
            }
        case "Ed25519":
            break
        default:
            return [ChainRuleViolation(certificate, at: depth, rule: "key_algorithm_not_allowed",
                                       "the key is \(key.description); browsers accept RSA, ECDSA P-256/P-384 and Ed25519 keys only")]
        }
        return []
    }

    /// No MD2/MD4/MD5/SHA-1 digests, no DSA, no algorithm OpenSSL cannot name.
    static func signature(_ certificate: Certificate, at depth: Int) -> ChainRuleViolation? {
        let nid = cossl_X509_signature_nid(certificate.x509)
        var digest: Int32 = NID_undef, keyType: Int32 = NID_undef
        guard nid != NID_undef, OBJ_find_sigid_algs(nid, &digest, &keyType) == 1 else {
            return ChainRuleViolation(certificate, at: depth, rule: "signature_algorithm_unknown",
                                      "the signature algorithm is not one browsers know")
        }
        if [NID_md2, NID_md4, NID_md5, NID_sha1, NID_md5_sha1].contains(digest) {
            return ChainRuleViolation(certificate, at: depth, rule: "signature_digest_weak",
                                      "it is signed with \(certificate.signatureAlgorithm); browsers refuse MD5 and SHA-1 signatures: have it reissued with SHA-256")
        }
        if keyType == NID_dsa || keyType == NID_dsaWithSHA1 {
            return ChainRuleViolation(certificate, at: depth, rule: "signature_algorithm_dsa",
                                      "it is signed with DSA (\(certificate.signatureAlgorithm)); browsers refuse DSA")
        }
        return nil
    }

    // MARK: - basicConstraints, keyUsage, version

    /// Issuers are v3 CAs with basicConstraints cA=TRUE, critical, with keyUsage keyCertSign and a pathLen their depth
    /// respects; the leaf is not a CA and cannot sign certificates. Of the anchor only its pathLenConstraint counts.
    /// Every violation, in chain order: the caller decides which ones it tolerates.
    static func caConstraints(_ chain: [Certificate], anchorDepth: Int?) -> [ChainRuleViolation] {
        let leaf = chain[0]
        let leafFlags = X509_get_extension_flags(leaf.x509)
        // A leaf that is its own anchor (`openssl req -x509` writes cA=TRUE and keyCertSign into a self-signed server
        // certificate) is one certificate trusted as such: OpenSSL, Go, GnuTLS and NSS connect to it.
        let leafIsAnchor = chain.count == 1
        if !leafIsAnchor, leafFlags & UInt32(EXFLAG_BCONS) != 0, leafFlags & UInt32(EXFLAG_CA) != 0 {
            return [ChainRuleViolation(leaf, at: 0, rule: "leaf_is_ca",
                                       "the server certificate has basicConstraints cA=TRUE; a TLS server certificate must not be a CA")]
        }
        if !leafIsAnchor, leafFlags & UInt32(EXFLAG_KUSAGE) != 0, X509_get_key_usage(leaf.x509) & UInt32(KU_KEY_CERT_SIGN) != 0 {
            return [ChainRuleViolation(leaf, at: 0, rule: "leaf_key_cert_sign",
                                       "the server certificate's keyUsage includes keyCertSign; only CA certificates may sign certificates")]
        }
        var violations: [ChainRuleViolation] = []
        var nonSelfIssuedBelow = 0
        for depth in chain.indices.dropFirst() {
            let issuer = chain[depth]
            let x509 = issuer.x509
            let flags = X509_get_extension_flags(x509)
            if depth != anchorDepth {
                if X509_get_version(x509) == 0 {
                    return violations + [ChainRuleViolation(issuer, at: depth, rule: "v1_ca",
                                                            "a version 1 certificate issues the certificate below it; v1 certificates are never CAs")]
                }
                if flags & UInt32(EXFLAG_BCONS) == 0 || flags & UInt32(EXFLAG_CA) == 0 {
                    return violations + [ChainRuleViolation(issuer, at: depth, rule: "issuer_not_ca",
                                                            "it issues the certificate below it but has no basicConstraints cA=TRUE")]
                }
                if flags & UInt32(EXFLAG_BCONS_CRITICAL) == 0 {
                    violations.append(ChainRuleViolation(issuer, at: depth, rule: "ca_basic_constraints_not_critical",
                                                         "the CA certificate's basicConstraints is not marked critical (RFC 5280 4.2.1.9)"))
                }
                if flags & UInt32(EXFLAG_KUSAGE) == 0 {
                    violations.append(ChainRuleViolation(issuer, at: depth, rule: "ca_key_usage_missing",
                                                         "the CA certificate has no keyUsage extension; RFC 5280 4.2.1.3 requires one with keyCertSign"))
                } else if X509_get_key_usage(x509) & UInt32(KU_KEY_CERT_SIGN) == 0 {
                    return violations + [ChainRuleViolation(issuer, at: depth, rule: "ca_key_cert_sign_missing",
                                                            "the CA certificate's keyUsage lacks keyCertSign, so it may not sign certificates")]
                }
            }
            // nonSelfIssuedBelow counts the intermediates between this CA and the leaf; an anchor's limit counts too.
            let pathLength = flags & UInt32(EXFLAG_BCONS) != 0 ? X509_get_pathlen(x509) : -1
            if pathLength >= 0, nonSelfIssuedBelow > pathLength {
                return violations + [ChainRuleViolation(issuer, at: depth, rule: "path_length_exceeded",
                                                        "pathLenConstraint \(pathLength) allows \(pathLength) intermediate(s) below this CA, the chain has \(nonSelfIssuedBelow)")]
            }
            if flags & UInt32(EXFLAG_SI) == 0 { nonSelfIssuedBelow += 1 }
        }
        return violations
    }

    // MARK: - extendedKeyUsage

    /// The leaf's EKU, when present, includes serverAuth (anyExtendedKeyUsage is not enough); an intermediate's EKU,
    /// when present, includes serverAuth or anyExtendedKeyUsage.
    static func extendedKeyUsage(_ chain: [Certificate], anchorDepth: Int?) -> ChainRuleViolation? {
        for (depth, certificate) in chain.enumerated() where depth != anchorDepth {
            let x509 = certificate.x509
            guard X509_get_extension_flags(x509) & UInt32(EXFLAG_XKUSAGE) != 0 else { continue }
            let usage = X509_get_extended_key_usage(x509)
            if usage & UInt32(XKU_SSL_SERVER) != 0 { continue }
            if depth == 0 {
                let onlyAny = usage & UInt32(XKU_ANYEKU) != 0
                return ChainRuleViolation(certificate, at: 0, rule: onlyAny ? "leaf_eku_any_only" : "leaf_eku_no_server_auth",
                                          onlyAny ? "the server certificate's extendedKeyUsage is anyExtendedKeyUsage without serverAuth; browsers require serverAuth"
                                                  : "the server certificate's extendedKeyUsage does not include serverAuth")
            }
            if usage & UInt32(XKU_ANYEKU) == 0 {
                return ChainRuleViolation(certificate, at: depth, rule: "intermediate_eku_no_server_auth",
                                          "the intermediate's extendedKeyUsage does not include serverAuth, so it cannot issue TLS server certificates")
            }
        }
        return nil
    }
}
