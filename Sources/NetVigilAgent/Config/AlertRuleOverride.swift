/// The settings one rule mapping gives (`alerts.rules.<kind>` or a target's `rules.<kind>`); nil keeps the
/// setting it is applied over. Made by reading configuration (or, in the module, memberwise).
public struct AlertRuleOverride: Sendable, Equatable {
    public var enabled: Bool?
    public var threshold: Int?
    public var resolveThreshold: Int?
    /// `.some(nil)` turns reminders off.
    public var reminder: Duration??
    public var sendResolved: Bool?
    public var window: ExpiryWindow?
    public var inhibit: Bool?
}

extension AlertRuleOverride {
    /// Reads a rule mapping of `kind` (its keys already checked against `AlertRule.allowedKeys(for:)`).
    init(kind: AlertRuleKind, reading mapping: ConfigMapping) throws {
        if let value = mapping["enabled"] { enabled = try value.bool() }
        if let value = mapping["threshold"] { threshold = try value.int(in: 1...10_000) }
        if let value = mapping["resolve_threshold"] { resolveThreshold = try value.int(in: 1...10_000) }
        if let value = mapping["reminder"] {
            let text = try value.string()
            if ["off", "none", "never"].contains(text.lowercased()) {
                reminder = .some(nil)
            } else {
                let duration = try value.duration()
                if duration != .zero, duration < .seconds(1) {
                    throw value.error("must be at least 1s (or 0s / off for no reminders)")
                }
                reminder = .some(duration == .zero ? nil : duration)
            }
        }
        if let value = mapping["send_resolved"] { sendResolved = try value.bool() }
        if let value = mapping["within"] { window = try ExpiryWindow(reading: value, kind: kind) }
        if let value = mapping["inhibit"] { inhibit = try value.bool() }
    }
}

/// A target's `rules:`: its own settings for some rules, applied over `alerts.rules`.
///
/// ```yaml
/// targets:
///   - name: api
///     url: https://api.example.com/health
///     rules:
///       cert_expiring: { within: 33% }
///       key_changed: { enabled: true }
/// ```
public struct AlertRuleOverrides: Sendable, Equatable {
    private var overrides: [AlertRuleKind: AlertRuleOverride]

    /// No overrides: the target follows `alerts.rules`.
    public init(_ overrides: [AlertRuleKind: AlertRuleOverride] = [:]) {
        self.overrides = overrides
    }

    /// The target's settings for `kind`, nil when it has none.
    public subscript(_ kind: AlertRuleKind) -> AlertRuleOverride? {
        get { overrides[kind] }
        set { overrides[kind] = newValue }
    }

    /// True when the target overrides nothing.
    public var isEmpty: Bool { overrides.isEmpty }

    /// Reads a target's `rules:` mapping; keys are rule kinds, values rule mappings (errors name the line).
    init(reading value: ConfigValue) throws {
        self.init()
        let mapping = try value.mapping(allowedKeys: AlertRuleKind.allCases.map(\.rawValue))
        for kind in AlertRuleKind.allCases {
            guard let rule = mapping[kind.rawValue] else { continue }
            overrides[kind] = try AlertRuleOverride(kind: kind, reading: rule.mapping(allowedKeys: AlertRule.allowedKeys(for: kind)))
        }
    }
}
