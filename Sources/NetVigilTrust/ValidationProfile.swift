/// How strictly a chain that OpenSSL builds is judged (the TLS policy key `validation`).
public enum ValidationProfile: String, Sendable, Hashable, Codable, CaseIterable {
    /// What browsers and TLS libraries enforce (Chrome, Go crypto/x509, rustls-webpki) plus the Baseline Requirements
    /// they enforce: OpenSSL with `X509_V_FLAG_X509_STRICT` at security level 2, then `WebPKIProfile`'s checks.
    case webpki
    /// OpenSSL's RFC 5280 path validation with `X509_V_FLAG_X509_STRICT` (netvigil's behaviour before `webpki`).
    case rfc5280

    /// The profile when none is configured.
    public static let `default`: ValidationProfile = .webpki
}
