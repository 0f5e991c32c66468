extension AlertRuleKind {
    /// The `alertname` in Alertmanager, the same as deploy/prometheus/netvigil.rules.yml uses where a Prometheus rule
    /// exists (the pin-expiry and key-change alerts come from the agent only).
    public var alertName: String {
        switch self {
        case .pinMismatch: "NetvigilPinMismatch"
        case .trustFailure: "NetvigilTrustFailure"
        case .certExpiring: "NetvigilCertificateExpiresSoon"
        case .targetDown: "NetvigilTargetDown"
        case .pinsExpiring: "NetvigilPinsExpiring"
        case .pinsExpired: "NetvigilPinsExpired"
        case .keyChanged: "NetvigilKeyChanged"
        }
    }

    /// The `severity` label, as in the Prometheus rules: `critical` pages, `warning` goes to the team. Lapsed pins
    /// are critical: pinning is off.
    public var severity: String {
        switch self {
        case .pinMismatch, .trustFailure, .pinsExpired: "critical"
        case .certExpiring, .targetDown, .pinsExpiring, .keyChanged: "warning"
        }
    }
}
