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
    ]

    /// The reason for one `/v1/status` target entry.
    static func words(for target: [String: Any]) -> String {
        let status = target["status"] as? String
        if status == "pending" { return "not probed yet" }
        guard let last = target["last_result"] as? [String: Any] else { return "no result" }
        let days = last["certificate_days_left"] as? Int
        let pin = last["pin_verdict"] as? String
        if pin == "mismatch" || pin == "mismatch_reported" { return "pin mismatch" }
        if let days, days < 0 { return "certificate expired" }
        if status == "skipped" {
            return "not reachable" + ((last["reachability_status"] as? String).map { " (\($0))" } ?? "")
        }
        if status == "down" {
            let kind = last["error_kind"] as? String
            if kind == "status", let code = last["http_status"] as? Int { return "HTTP \(code)" }
            if kind == "trust", let verdict = last["trust_verdict"] as? String, verdict.hasPrefix("untrusted:") {
                return "certificate not trusted (\(verdict.dropFirst("untrusted:".count)))"
            }
            return kind.map { kindWords[$0] ?? $0 } ?? "failed"
        }
        if pin == "expired" { return "pins expired" }
        if let days, days < 14 { return "certificate expires in \(days == 1 ? "1 day" : "\(days) days")" }
        return (last["http_status"] as? Int).map { "HTTP \($0)" } ?? "responding"
    }
}
