import NetVigilProbeModel

/// Why a probe failed: a stable `kind` plus a one-line, actionable message.
public struct ProbeError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The failure class (`ProbeErrorKind`: results store and show its raw value).
    public typealias Kind = ProbeErrorKind

    /// The failure class.
    public var kind: Kind
    /// One line for people.
    public var message: String
    /// TLS alert description (e.g. `handshake failure`) for `tlsHandshake`.
    public var alert: String?
    /// Trust verdict summary (e.g. `untrusted:chainInvalid`) for `trust`.
    public var verdict: TrustSummary?
    /// The phase (`resolve`, `connect`, `starttls`, `tls`, `processing`, `transfer`) for `timeout`.
    public var phase: String?

    /// Makes an error.
    public init(_ kind: Kind, _ message: String, alert: String? = nil, verdict: TrustSummary? = nil, phase: String? = nil) {
        self.kind = kind
        self.message = message
        self.alert = alert
        self.verdict = verdict
        self.phase = phase
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
