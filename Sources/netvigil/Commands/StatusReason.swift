/// A target's state in the words of the status page (`reason(target)` in its script): "pin mismatch", "connection
/// refused", "certificate expires in 9 days", so the terminal and the page say the same thing.
enum StatusReason {
    /// Error kinds in words; an unknown kind is shown as sent.
    static let kindWords = [
        "invalidRequest": "invalid request", "dns": "name does not resolve", "connectRefused": "connection refused",
        "connectTimeout": "connect timed out", "connect": "cannot connect", "tlsHandshake": "TLS handshake failed",
        "trust": "certificate not trusted", "httpProtocol": "bad HTTP response", "contentType": "unexpected content type",
        "expectation": "expectation failed", "bodyTooLarge": "response too large", "timeout": "timed out",
        "resourceExhausted": "agent out of resources", "insecureRedirect": "redirect to plain HTTP",
        "clientCertificateRequired": "client certificate required", "clientCertificateRejected": "client certificate rejected",
        "proxy": "proxy failed", "starttlsUnavailable": "STARTTLS not offered", "protocolGreeting": "unexpected greeting",
        "cancelled": "cancelled at stop",
    ]

    /// The reason for one `/v1/status` target entry.
    static func words(for target: StatusDocument.Target) -> String {
        let status = target.status
        if status == "pending" { return "not probed yet" }
        guard let last = target.lastResult else { return "no result" }
        let days = last.certificateDaysLeft
        let pin = last.pinVerdict
        if pin == "mismatch" || pin == "mismatch_reported" { return "pin mismatch" }
        if let days, days < 0 { return "certificate expired" }
        if status == "skipped" {
            return "not reachable" + (last.reachabilityStatus.map { " (\($0))" } ?? "")
        }
        if status == "down" {
            let kind = last.errorKind
            if kind == "status", let code = last.httpStatus { return "HTTP \(code)" }
            if kind == "trust", let verdict = last.trustVerdict, verdict.hasPrefix("untrusted:") {
                return "certificate not trusted (\(verdict.dropFirst("untrusted:".count)))"
            }
            return kind.map { kindWords[$0] ?? $0 } ?? "failed"
        }
        if pin == "expired" { return "pins expired" }
        if let days, days < 14 { return "certificate expires in \(days == 1 ? "1 day" : "\(days) days")" }
        return last.httpStatus.map { "HTTP \($0)" } ?? "responding"
    }
}
