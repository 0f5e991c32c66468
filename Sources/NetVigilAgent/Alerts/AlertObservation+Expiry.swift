import Foundation
import NetVigilStore

extension AlertObservation {
    /// `cert_expiring`: every certificate of the validated chain (the served one when none validated) against the
    /// rule's window; the alert names the certificate that expires first, with its depth. The leaf's window is at
    /// least the target's `min_cert_validity`.
    static func certificateExpiry(_ record: ProbeRecord, rule: AlertRule, context: AlertContext, now: Timestamp) -> AlertObservation {
        let chain = record.validatedChain.isEmpty ? record.servedChain : record.validatedChain
        guard !chain.isEmpty else { return .neutral }
        var first: (depth: Int, certificate: CertificateRecord, left: Int64)?
        var expiring = 0
        for (depth, certificate) in chain.enumerated() {
            let left = certificate.notAfter.milliseconds - now.milliseconds
            var window = rule.window.milliseconds(lifetime: certificate.notAfter.milliseconds - certificate.notBefore.milliseconds)
            if depth == 0, let minimum = context.minCertificateValidity {
                window = max(window, ConfigDuration.milliseconds(minimum))
            }
            guard left <= window else { continue }
            expiring += 1
            if first.map({ left < $0.left }) ?? true { first = (depth, certificate, left) }
        }
        guard let first else { return .good }
        let endpoint = "\(context.host):\(context.port)"
        let subject = first.certificate.subject
        var message: String
        if first.left <= 0 {
            message = "certificate \(subject) on \(endpoint) expired at \(first.certificate.notAfter.rfc3339)"
        } else {
            message = "certificate \(subject) on \(endpoint) expires in \(amount(first.left)) (\(first.certificate.notAfter.rfc3339))"
        }
        message += "; depth \(first.depth) (\(role(depth: first.depth, count: chain.count, validated: !record.validatedChain.isEmpty)))"
        if expiring > 1 { message += ", the first of \(expiring) expiring certificates in the chain" }
        return .bad(message: message, fingerprint: first.certificate.sha256)
    }

    /// `pins_expiring`: the policy's `pins_expire` is within the rule's window. Once past it, `pins_expired` takes
    /// over and this rule stays as it is (firing until the policy is renewed).
    static func pinsExpiring(rule: AlertRule, context: AlertContext, now: Timestamp) -> AlertObservation {
        guard let expire = context.pinsExpire else { return .good }
        let left = Timestamp(expire).milliseconds - now.milliseconds
        if left <= 0 { return .neutral }
        guard left <= rule.window.milliseconds(lifetime: nil) else { return .good }
        let message = "pins of TLS policy \(context.notedHostname) for \(context.host):\(context.port) expire in \(amount(left)) "
            + "(pins_expire \(Timestamp(expire).rfc3339)); after that pinning is OFF and fails open: any trusted certificate "
            + "is accepted. Renew the pins and move pins_expire"
        return .bad(message: message, fingerprint: "pins-expire \(Timestamp(expire).milliseconds)")
    }

    /// `pins_expired`: the policy's `pins_expire` has passed, so its pins are no longer checked (fail open, as TrustKit).
    static func pinsExpired(context: AlertContext, now: Timestamp) -> AlertObservation {
        guard let expire = context.pinsExpire else { return .good }
        guard now.milliseconds >= Timestamp(expire).milliseconds else { return .good }
        let message = "PINNING IS OFF for \(context.host):\(context.port): the pins of TLS policy \(context.notedHostname) "
            + "expired at \(Timestamp(expire).rfc3339) (pins_expire); netvigil now fails open, as TrustKit does, and accepts "
            + "any trusted certificate without checking pins. Renew the pins and move pins_expire"
        return .bad(message: message, fingerprint: "pins-expired \(Timestamp(expire).milliseconds)")
    }

    /// `N days` (whole days) or `N hours` (at least 1).
    static func amount(_ milliseconds: Int64) -> String {
        let days = Double(milliseconds) / 86_400_000
        return days >= 1 ? "\(Int(days)) days" : "\(max(1, milliseconds / 3_600_000)) hours"
    }

    /// `leaf`, `intermediate` or `anchor` (the last certificate of a validated chain).
    static func role(depth: Int, count: Int, validated: Bool) -> String {
        if depth == 0 { return "leaf" }
        return validated && depth == count - 1 ? "anchor" : "intermediate"
    }
}
