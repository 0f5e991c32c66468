extension AlertRuleKind {
    /// The `alertname` in Alertmanager, the same as deploy/prometheus/netvigil.rules.yml uses.
    public var alertName: String {
        switch self {
        case .pinMismatch: "NetvigilPinMismatch"
        case .trustFailure: "NetvigilTrustFailure"
        case .certExpiring: "NetvigilCertificateExpiresSoon"
        case .targetDown: "NetvigilTargetDown"
        }
    }

    /// The `severity` label, as in the Prometheus rules: `critical` pages, `warning` goes to the team.
    public var severity: String {
        switch self {
        case .pinMismatch, .trustFailure: "critical"
        case .certExpiring, .targetDown: "warning"
        }
    }
}
