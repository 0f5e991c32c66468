/// The settings of one alert rule (`alerts.rules.<kind>`).
public struct AlertRule: Sendable, Equatable {
    /// Keys accepted in a rule mapping; `within` only for `cert_expiring`.
    static func allowedKeys(for kind: AlertRuleKind) -> [String] {
        var keys = ["enabled", "threshold", "resolve_threshold", "reminder", "send_resolved"]
        if kind.inhibitsTargetDown { keys.append("inhibit") }
        if kind == .certExpiring { keys.append("within") }
        return keys
    }

    /// False turns the rule off for every target.
    public var enabled: Bool
    /// Consecutive bad results before the alert fires.
    public var threshold: Int
    /// Consecutive good results before a firing alert resolves.
    public var resolveThreshold: Int
    /// Interval between reminders while the alert keeps firing; nil sends none.
    public var reminder: Duration?
    /// Whether a resolved notice is sent to the sinks.
    public var sendResolved: Bool
    /// `cert_expiring` only: how close to its notAfter a served leaf counts as expiring.
    public var within: Duration
    /// `pin_mismatch`, `trust_failure`, `cert_expiring`: a failed result this rule explains does not count for
    /// `target_down` (one cause, one page). False lets `target_down` fire for it too.
    public var inhibit: Bool

    /// Makes a rule.
    public init(enabled: Bool = true, threshold: Int = 1, resolveThreshold: Int = 1, reminder: Duration? = .seconds(6 * 3_600),
                sendResolved: Bool = true, within: Duration = .seconds(14 * 86_400), inhibit: Bool = true) {
        self.enabled = enabled
        self.threshold = threshold
        self.resolveThreshold = resolveThreshold
        self.reminder = reminder
        self.sendResolved = sendResolved
        self.within = within
        self.inhibit = inhibit
    }

    /// The built-in settings of a rule (all rules are on by default).
    public static func defaults(for kind: AlertRuleKind) -> AlertRule {
        switch kind {
        case .pinMismatch, .trustFailure:
            return AlertRule()
        case .certExpiring:
            return AlertRule(reminder: .seconds(24 * 3_600))
        case .targetDown:
            return AlertRule(threshold: 3, resolveThreshold: 2)
        }
    }

    /// Reads a rule mapping over the defaults of `kind`.
    init(kind: AlertRuleKind, reading mapping: ConfigMapping) throws {
        self = .defaults(for: kind)
        if let value = mapping["enabled"] { enabled = try value.bool() }
        if let value = mapping["threshold"] { threshold = try value.int(in: 1...10_000) }
        if let value = mapping["resolve_threshold"] { resolveThreshold = try value.int(in: 1...10_000) }
        if let value = mapping["reminder"] {
            let text = try value.string()
            if ["off", "none", "never"].contains(text.lowercased()) {
                reminder = nil
            } else {
                let duration = try value.duration()
                reminder = duration == .zero ? nil : duration
                if let reminder, reminder < .seconds(1) {
                    throw value.error("must be at least 1s (or 0s / off for no reminders)")
                }
            }
        }
        if let value = mapping["send_resolved"] { sendResolved = try value.bool() }
        if let value = mapping["within"] { within = try value.duration(minimum: .seconds(60)) }
        if let value = mapping["inhibit"] { inhibit = try value.bool() }
    }
}

/// The settings of all four rules (`alerts.rules`).
public struct AlertRules: Sendable, Equatable {
    private var rules: [AlertRuleKind: AlertRule]

    /// Every rule with its defaults.
    public init() {
        rules = Dictionary(uniqueKeysWithValues: AlertRuleKind.allCases.map { ($0, AlertRule.defaults(for: $0)) })
    }

    /// The settings of one rule.
    public subscript(_ kind: AlertRuleKind) -> AlertRule {
        get { rules[kind] ?? .defaults(for: kind) }
        set { rules[kind] = newValue }
    }

    /// The rules that are on, in a stable order.
    public var enabledKinds: [AlertRuleKind] {
        AlertRuleKind.allCases.filter { self[$0].enabled }
    }

    /// Reads `alerts.rules`; a rule not listed keeps its defaults.
    init(reading mapping: ConfigMapping) throws {
        self.init()
        for kind in AlertRuleKind.allCases {
            guard let value = mapping[kind.rawValue] else { continue }
            self[kind] = try AlertRule(kind: kind, reading: value.mapping(allowedKeys: AlertRule.allowedKeys(for: kind)))
        }
    }
}
