/// One rule of the `webpki` profile that a certificate of the chain breaks: where, which rule and what to do.
public struct ChainRuleViolation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Position in the chain (0 = leaf).
    public let depth: Int
    /// Subject of that certificate, one line.
    public let subject: String
    /// Stable rule identifier, e.g. `wildcard_over_public_suffix`, `ca_basic_constraints_not_critical`.
    public let rule: String
    /// What is wrong and what a person can do about it.
    public let detail: String

    public var description: String {
        "\(detail) (rule \(rule), certificate at depth \(depth): \(subject.isEmpty ? "empty subject" : subject))"
    }
}

extension ChainRuleViolation {
    /// A violation by `certificate` at `depth` (its subject taken from it).
    init(_ certificate: Certificate, at depth: Int, rule: String, _ detail: String) {
        self.init(depth: depth, subject: certificate.subject, rule: rule, detail: detail)
    }
}
