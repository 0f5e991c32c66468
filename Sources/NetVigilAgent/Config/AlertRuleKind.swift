/// The four alert rules, by their configuration key (also the `kind` of alert rows and events).
public enum AlertRuleKind: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// A served chain did not match the known pins (enforced or report-only).
    case pinMismatch = "pin_mismatch"
    /// The chain is untrusted for a reason other than a pin mismatch.
    case trustFailure = "trust_failure"
    /// The served leaf certificate expires within the rule's `within`.
    case certExpiring = "cert_expiring"
    /// The probe failed.
    case targetDown = "target_down"

    /// Words for log lines and messages, e.g. `pin mismatch`.
    public var title: String {
        switch self {
        case .pinMismatch: "pin mismatch"
        case .trustFailure: "trust failure"
        case .certExpiring: "certificate expiring"
        case .targetDown: "target down"
        }
    }

    /// Whether this rule's failed results are kept from `target_down` (the `inhibit` key): the rules that say why a
    /// probe failed more precisely than "down".
    public var inhibitsTargetDown: Bool { self != .targetDown }

    public static func < (lhs: AlertRuleKind, rhs: AlertRuleKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
