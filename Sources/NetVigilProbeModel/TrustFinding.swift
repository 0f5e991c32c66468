/// Something a served certificate does that the CA/Browser Forum Baseline Requirements forbid but clients accept:
/// reported, never a reason to distrust. `code` names the rule as zlint does.
public struct TrustFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How much it matters. Neither changes the verdict.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// A standard is broken, but mainstream TLS clients connect all the same.
        case warning
        /// A mainstream TLS client (named in the message) would refuse the connection, though most connect.
        case error
    }

    /// The zlint-style rule code, e.g. `e_tls_server_cert_valid_time_longer_than_398_days`.
    public let code: String
    public let severity: Severity
    /// Index in the served chain (0 = leaf).
    public let certificate: Int
    /// What is wrong and what to do, naming the rule's source.
    public let message: String

    public init(code: String, certificate: Int, message: String, severity: Severity = .warning) {
        self.code = code
        self.severity = severity
        self.certificate = certificate
        self.message = message
    }

    public var description: String { "\(severity.rawValue) \(code) (certificate \(certificate)): \(message)" }
}
