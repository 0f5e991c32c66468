/// The alert rules, by their configuration key (also the `kind` of alert rows and events).
public enum AlertRuleKind: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// A served chain did not match the known pins (enforced or report-only).
    case pinMismatch = "pin_mismatch"
    /// The chain is untrusted for a reason other than a pin mismatch.
    case trustFailure = "trust_failure"
    /// A certificate of the validated chain (leaf, intermediates, anchor) expires within the rule's `within`.
    case certExpiring = "cert_expiring"
    /// The probe failed.
    case targetDown = "target_down"
    /// The pins of the target's TLS policy reach their `pins_expire` within the rule's `within`.
    case pinsExpiring = "pins_expiring"
    /// The pins of the target's TLS policy are past `pins_expire`: pinning is off (fails open).
    case pinsExpired = "pins_expired"
    /// The served leaf's public key differs from the previous result's (off by default).
    case keyChanged = "key_changed"

    /// Words for log lines and messages, e.g. `pin mismatch`.
    public var title: String {
        switch self {
        case .pinMismatch: "pin mismatch"
        case .trustFailure: "trust failure"
        case .certExpiring: "certificate expiring"
        case .targetDown: "target down"
        case .pinsExpiring: "pins expiring"
        case .pinsExpired: "pins expired"
        case .keyChanged: "server key changed"
        }
    }

    /// Whether this rule's failed results are kept from `target_down` (the `inhibit` key): the rules that say why a
    /// probe failed more precisely than "down".
    public var inhibitsTargetDown: Bool {
        switch self {
        case .pinMismatch, .trustFailure, .certExpiring: true
        case .targetDown, .pinsExpiring, .pinsExpired, .keyChanged: false
        }
    }

    /// Whether the rule has a `within` window: `cert_expiring` (a duration or a share of the lifetime) and
    /// `pins_expiring` (a duration).
    public var hasWindow: Bool { self == .certExpiring || self == .pinsExpiring }

    public static func < (lhs: AlertRuleKind, rhs: AlertRuleKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
