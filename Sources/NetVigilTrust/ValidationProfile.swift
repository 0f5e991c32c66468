/// How a chain that OpenSSL builds is judged (the TLS policy key `validation`). docs/trust.md has the rule of each
/// profile and the decided splits between clients.
public enum ValidationProfile: String, Sendable, Hashable, Codable, CaseIterable {
    /// Would mainstream TLS clients connect? Trusted exactly when browser-grade validators (Chrome, Firefox/NSS, Go,
    /// rustls-webpki, pyca) accept the chain for the host; standards violations they tolerate (missing key
    /// identifiers, a CA's non-critical basicConstraints...) are findings, not refusals. Key strength and signature
    /// digests follow the stricter clients (OpenSSL security level 2).
    case webpki
    /// RFC 5280 path validation as OpenSSL's default verification does it (no `X509_V_FLAG_X509_STRICT`), with the
    /// host checked by OpenSSL (commonName fallback included).
    case rfc5280
    /// Every RFC 5280 and Baseline Requirements structure rule that netvigil checks is a refusal: for an operator who
    /// holds a private CA to the letter. `webpki` plus `X509_V_FLAG_X509_STRICT` and the tolerated rules refused.
    case strict

    /// The profile when none is configured.
    public static let `default`: ValidationProfile = .webpki

    /// Whether `WebPKIProfile`'s rules judge the chain (and the host check is theirs, subjectAltName only).
    var usesWebPKIRules: Bool { self != .rfc5280 }
}
