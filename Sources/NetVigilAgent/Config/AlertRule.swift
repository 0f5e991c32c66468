/// The settings of one alert rule (`alerts.rules.<kind>`, or a target's `rules.<kind>` over them).
public struct AlertRule: Sendable, Equatable {
    /// Keys accepted in a rule mapping; `within` only for `cert_expiring` and `pins_expiring`.
    static func allowedKeys(for kind: AlertRuleKind) -> [String] {
        var keys = ["enabled", "threshold", "resolve_threshold", "reminder", "send_resolved"]
        if kind.inhibitsTargetDown { keys.append("inhibit") }
        if kind.hasWindow { keys.append("within") }
        return keys
    }

    /// False turns the rule off.
    public var enabled: Bool
    /// Consecutive bad results before the alert fires.
    public var threshold: Int
    /// Consecutive good results before a firing alert resolves.
    public var resolveThreshold: Int
    /// Interval between reminders while the alert keeps firing; nil sends none.
    public var reminder: Duration?
    /// Whether a resolved notice is sent to the sinks.
    public var sendResolved: Bool
    /// `cert_expiring`, `pins_expiring`: how close to its end a certificate (or the pins) counts as expiring.
    public var window: ExpiryWindow
    /// `pin_mismatch`, `trust_failure`, `cert_expiring`: a failed result this rule explains does not count for
    /// `target_down` (one cause, one page). False lets `target_down` fire for it too.
    public var inhibit: Bool

    /// The window as a fixed duration (zero for a share); setting it makes the window that duration.
    public var within: Duration {
        get { window.duration }
        set { window = .duration(newValue) }
    }

    /// Makes a rule.
    public init(enabled: Bool = true, threshold: Int = 1, resolveThreshold: Int = 1, reminder: Duration? = .seconds(6 * 3_600),
                sendResolved: Bool = true, window: ExpiryWindow = .automatic(.seconds(14 * 86_400)), inhibit: Bool = true) {
        self.enabled = enabled
        self.threshold = threshold
        self.resolveThreshold = resolveThreshold
        self.reminder = reminder
        self.sendResolved = sendResolved
        self.window = window
        self.inhibit = inhibit
    }

    /// The built-in settings of a rule (every rule but `key_changed` is on by default).
    public static func defaults(for kind: AlertRuleKind) -> AlertRule {
        switch kind {
        case .pinMismatch, .trustFailure:
            return AlertRule()
        case .certExpiring:
            return AlertRule(reminder: .seconds(24 * 3_600))
        case .targetDown:
            return AlertRule(threshold: 3, resolveThreshold: 2)
        case .pinsExpiring:
            return AlertRule(reminder: .seconds(24 * 3_600), window: .duration(.seconds(30 * 86_400)))
        case .pinsExpired:
            return AlertRule(reminder: .seconds(24 * 3_600))
        case .keyChanged:
            // A change is one event: no reminders, and the next result with the same key resolves it quietly.
            return AlertRule(enabled: false, reminder: nil, sendResolved: false)
        }
    }

    /// Reads a rule mapping over the defaults of `kind`.
    init(kind: AlertRuleKind, reading mapping: ConfigMapping) throws {
        self = Self.defaults(for: kind).applying(try AlertRuleOverride(kind: kind, reading: mapping))
    }

    /// This rule with the settings `override` gives replaced.
    public func applying(_ override: AlertRuleOverride) -> AlertRule {
        var rule = self
        if let value = override.enabled { rule.enabled = value }
        if let value = override.threshold { rule.threshold = value }
        if let value = override.resolveThreshold { rule.resolveThreshold = value }
        if let value = override.reminder { rule.reminder = value }
        if let value = override.sendResolved { rule.sendResolved = value }
        if let value = override.window { rule.window = value }
        if let value = override.inhibit { rule.inhibit = value }
        return rule
    }
}

/// The settings of all rules (`alerts.rules`).
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

    /// The settings of `kind` for a target with `overrides` (its `rules:`).
    public func rule(_ kind: AlertRuleKind, for overrides: AlertRuleOverrides) -> AlertRule {
        overrides[kind].map { self[kind].applying($0) } ?? self[kind]
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
