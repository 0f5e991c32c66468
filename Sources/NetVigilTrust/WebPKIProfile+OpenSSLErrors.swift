import COpenSSL

extension WebPKIProfile {
    /// The rule family of an OpenSSL verify error that `X509_V_FLAG_X509_STRICT` or security level 2 raised, as a
    /// typed reason; nil for errors outside the profile's families (expiry, unknown issuer, bad signature...), which
    /// stay `chainInvalid`.
    static func reason(forOpenSSL verification: ChainVerification) -> ServerTrustFailureReason? {
        let kind: String
        let rule: String
        switch verification.code {
        case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL, X509_V_ERR_EC_KEY_EXPLICIT_PARAMS:
            (kind, rule) = ("weakKey", "key_below_security_level_2")
        case X509_V_ERR_CA_MD_TOO_WEAK:
            (kind, rule) = ("weakSignature", "signature_below_security_level_2")
        case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_KEYUSAGE_NO_CERTSIGN,
             X509_V_ERR_CA_BCONS_NOT_CRITICAL, X509_V_ERR_CA_CERT_MISSING_KEY_USAGE, X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA,
             X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN, X509_V_ERR_KU_KEY_CERT_SIGN_INVALID_FOR_NON_CA,
             X509_V_ERR_INVALID_NON_CA:
            (kind, rule) = ("caConstraintViolation", "openssl_ca_constraints")
        case X509_V_ERR_INVALID_PURPOSE:
            (kind, rule) = ("extendedKeyUsageViolation", "openssl_purpose_ssl_server")
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION, X509_V_ERR_SUBTREE_MINMAX,
             X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX, X509_V_ERR_UNSUPPORTED_NAME_SYNTAX:
            (kind, rule) = ("nameConstraintViolation", "openssl_name_constraints")
        case X509_V_ERR_INVALID_EXTENSION, X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER,
             X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER, X509_V_ERR_EMPTY_SUBJECT_ALT_NAME, X509_V_ERR_EMPTY_SUBJECT_SAN_NOT_CRITICAL,
             X509_V_ERR_ISSUER_NAME_EMPTY, X509_V_ERR_SUBJECT_NAME_EMPTY, X509_V_ERR_AUTHORITY_KEY_IDENTIFIER_CRITICAL,
             X509_V_ERR_SUBJECT_KEY_IDENTIFIER_CRITICAL, X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH,
             X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3, X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD,
             X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD, X509_V_ERR_INVALID_POLICY_EXTENSION:
            (kind, rule) = ("malformedCertificate", "openssl_x509_strict")
        default:
            return nil
        }
        let violation = ChainRuleViolation(depth: Int(verification.depth), subject: verification.failedSubject ?? "",
                                           rule: rule, detail: "OpenSSL: \(verification.text) (verify error \(verification.code))")
        return ServerTrustFailureReason.ruleViolation(kind: kind, violation)
    }
}
