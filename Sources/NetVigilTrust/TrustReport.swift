import Foundation
import NetVigilProbeModel

/// A certificate as reports and the CLI show it. Dates are ISO 8601 strings (UTC).
public struct CertificateSummary: Sendable, Hashable, Codable {
    public let subject: String
    public let issuer: String
    public let serial: String
    public let notBefore: String
    public let notAfter: String
    /// `sha256/BASE64` SPKI pin.
    public let pin: String
    /// SHA-256 of the DER, hex.
    public let sha256: String
    /// `DNS:name` / `IP:address`.
    public let subjectAltNames: [String]
    /// e.g. `RSA 2048`, `EC P-256`, `Ed25519 256`.
    public let key: String
    public let signatureAlgorithm: String
    public let isCA: Bool

    enum CodingKeys: String, CodingKey {
        case subject, issuer, serial, pin, sha256, key
        case notBefore = "not_before"
        case notAfter = "not_after"
        case subjectAltNames = "subject_alt_names"
        case signatureAlgorithm = "signature_algorithm"
        case isCA = "is_ca"
    }

    public init(_ certificate: Certificate) {
        subject = certificate.subject
        issuer = certificate.issuer
        serial = certificate.serialNumber
        notBefore = certificate.notBefore.formatted(.iso8601)
        notAfter = certificate.notAfter.formatted(.iso8601)
        pin = certificate.spkiPin.description
        sha256 = certificate.sha256Fingerprint
        subjectAltNames = certificate.subjectAlternativeNames.map(\.description)
        key = certificate.publicKey.description
        signatureAlgorithm = certificate.signatureAlgorithm
        isCA = certificate.isCA
    }
}

/// The JSON form of a `TrustEvaluation` (what `netvigil trust evaluate --json` prints and the store can keep):
/// `{"trusted", "verdict", "reason": {"kind","message",...}|null, "pin_verdict", "pin_mismatch_reported",
/// "reported_mismatch", "notices", "host", "evaluated_at", "served_chain", "validated_chain",
/// "pins": {"configured","served","matched"}, "message", "findings"}`.
public struct TrustReport: Sendable, Codable {
    /// A notice as `{"kind","message"}`.
    public struct NoticeReport: Sendable, Hashable, Codable {
        public let kind: String
        public let message: String
    }

    /// Pins as strings.
    public struct PinsReport: Sendable, Hashable, Codable {
        public let configured: [String]
        public let served: [String]
        public let matched: [String]
    }

    public let trusted: Bool
    /// `trusted` or `untrusted:<kind>`.
    public let verdict: TrustSummary
    public let reason: ServerTrustFailureReason?
    public let pinVerdict: PinVerdict
    public let pinMismatchReported: Bool
    public let reportedMismatch: ServerTrustFailureReason?
    public let notices: [NoticeReport]
    public let host: String?
    public let evaluatedAt: String
    public let servedChain: [CertificateSummary]
    public let validatedChain: [CertificateSummary]
    public let pins: PinsReport
    public let message: String
    /// Baseline Requirements findings (`{code, severity, certificate, message}`); they never change the verdict.
    public let findings: [TrustFinding]

    enum CodingKeys: String, CodingKey {
        case trusted, verdict, reason, notices, host, pins, message, findings
        case pinVerdict = "pin_verdict"
        case pinMismatchReported = "pin_mismatch_reported"
        case reportedMismatch = "reported_mismatch"
        case evaluatedAt = "evaluated_at"
        case servedChain = "served_chain"
        case validatedChain = "validated_chain"
    }

    public init(_ evaluation: TrustEvaluation) {
        trusted = evaluation.isTrusted
        verdict = evaluation.verdict.summary
        reason = evaluation.verdict.reason
        pinVerdict = evaluation.pinVerdict
        pinMismatchReported = evaluation.pinMismatchReported
        reportedMismatch = evaluation.reportedMismatch
        notices = evaluation.notices.map { NoticeReport(kind: $0.kind, message: $0.description) }
        host = evaluation.host
        evaluatedAt = evaluation.evaluatedAt.formatted(.iso8601)
        servedChain = evaluation.servedChain.map(CertificateSummary.init)
        validatedChain = evaluation.validatedChain.map(CertificateSummary.init)
        pins = PinsReport(configured: evaluation.pins.configured.map(\.description),
                          served: evaluation.pins.served.map(\.description),
                          matched: evaluation.pins.matched.map(\.description))
        message = evaluation.message
        findings = evaluation.findings
    }

    /// Encodes `reason` explicitly as `null` when trusted, so the key is always present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(trusted, forKey: .trusted)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(reason, forKey: .reason)
        try container.encode(pinVerdict, forKey: .pinVerdict)
        try container.encode(pinMismatchReported, forKey: .pinMismatchReported)
        try container.encode(reportedMismatch, forKey: .reportedMismatch)
        try container.encode(notices, forKey: .notices)
        try container.encode(host, forKey: .host)
        try container.encode(evaluatedAt, forKey: .evaluatedAt)
        try container.encode(servedChain, forKey: .servedChain)
        try container.encode(validatedChain, forKey: .validatedChain)
        try container.encode(pins, forKey: .pins)
        try container.encode(message, forKey: .message)
        try container.encode(findings, forKey: .findings)
    }
}

extension TrustEvaluation {
    /// The JSON form.
    public var report: TrustReport { TrustReport(self) }
}
