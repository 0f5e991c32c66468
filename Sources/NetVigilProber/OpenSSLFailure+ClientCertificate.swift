import COpenSSL

extension OpenSSLFailure {
    /// The name of TLS alert `code` as OpenSSL spells it, lower-cased; OpenSSL 3.0 calls the TLS 1.3 alerts
    /// "unknown", so those are named here (RFC 8446 §6).
    static func alertDescription(_ code: Int32) -> String {
        switch code {
        case 109: return "missing extension"
        case 116: return "certificate required"
        default: return SSL_alert_desc_string_long(code).map { String(cString: $0).lowercased() } ?? "alert \(code)"
        }
    }

    /// Alerts a server sends when it wants a certificate and got none: `certificate_required` (116, TLS 1.3), or
    /// `handshake_failure` (40, TLS 1.2) after its CertificateRequest.
    static let certificateMissingAlerts: Set<String> = ["certificate required", "handshake failure"]

    /// Alerts a server sends when it refuses the certificate it got.
    static let certificateRefusedAlerts: Set<String> = [
        "bad certificate", "unsupported certificate", "certificate revoked", "certificate expired",
        "certificate unknown", "unknown ca", "access denied", "handshake failure", "decrypt error",
        "certificate required",
    ]

    /// The failure as `clientCertificateRequired` / `clientCertificateRejected` when the alert the server sent
    /// refuses the client's certificate (or its absence) after a CertificateRequest; nil for any other failure.
    func clientCertificateError(requested: Bool, presented: Bool) -> ProbeError? {
        guard let alert else { return nil }
        if alert == "certificate required" || (requested && !presented && Self.certificateRefusedAlerts.contains(alert)) {
            return ProbeError(.clientCertificateRequired,
                              "the server requires a client certificate and none was presented (TLS alert \"\(alert)\"; "
                              + "set tls.client_certificate and tls.client_key, or --cert and --key)",
                              alert: alert)
        }
        if requested, presented, Self.certificateRefusedAlerts.contains(alert) {
            return ProbeError(.clientCertificateRejected, "the server rejected the client certificate (TLS alert \"\(alert)\")",
                              alert: alert)
        }
        return nil
    }
}
