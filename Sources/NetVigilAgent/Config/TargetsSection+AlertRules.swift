extension TargetsSection {
    /// Every target's own `rules:` by target name (empty ones included, so a reload that removes them takes effect).
    public var alertRules: [String: AlertRuleOverrides] {
        Dictionary(targets.map { ($0.name, $0.alertRules) }, uniquingKeysWith: { first, _ in first })
    }
}
