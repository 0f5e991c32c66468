import Foundation
import NetVigilStore
import NetVigilTestSupport
@testable import NetVigilAgent

/// Certificates with chosen validity for the expiry and key-change rules: the real fixture certificate's PEM, with
/// the subject, dates, digest and pin the rule reads replaced.
enum ExpiryFixtures {
    static let day: Int64 = 86_400

    /// A certificate valid from `start` for `days`, with its own digest and SPKI pin (`sha256/<subject>`).
    static func certificate(_ subject: String, from start: Timestamp, days: Int64, pin: String? = nil) -> CertificateRecord {
        var certificate = AlertFixtures.certificates.pinned
        certificate.subject = "CN=\(subject)"
        certificate.sha256 = String(repeating: "0", count: 8) + subject.utf8.map { String(format: "%02x", $0) }.joined()
        certificate.notBefore = start
        certificate.notAfter = start.adding(.seconds(days * day))
        certificate.spkiPin = pin ?? "sha256/\(subject)="
        return certificate
    }

    /// A certificate that has `left` seconds left at `now`, out of a lifetime of `days`.
    static func certificate(_ subject: String, now: Timestamp, left: Int64, days: Int64) -> CertificateRecord {
        certificate(subject, from: now.adding(.seconds(left - days * day)), days: days)
    }

    /// A trusted, pin-matched result of `api` that served and validated `chain`.
    static func record(at time: Timestamp, chain: [CertificateRecord], trusted: Bool = true) -> ProbeRecord {
        ProbeRecord(time: time, target: "api", url: "https://api.example.com:8443/health", outcome: trusted ? .ok : .failed,
                    errorKind: trusted ? nil : .trust, httpStatus: trusted ? 200 : nil,
                    trustVerdict: trusted ? .trusted : .untrusted(reason: "unknownIssuer"), pinVerdict: trusted ? .matched : .notEvaluated,
                    servedChain: trusted && chain.count > 1 ? Array(chain.dropLast()) : chain, validatedChain: trusted ? chain : [])
    }

    /// An engine with `configure` applied to the default rules.
    static func engine(_ configure: (inout AlertRules) -> Void = { _ in }) -> AlertEngine {
        var rules = AlertRules()
        configure(&rules)
        return AlertEngine(rules: rules, logger: LogRecorder().logger())
    }
}
