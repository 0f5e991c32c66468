/// What the alert engine is told about a target.
extension ProbeTarget {
    /// The target's sinks, labels and pin policy facts for the alert engine; `addresses`: what each address showed
    /// in this tick (`addresses: all`).
    public func alertContext(addresses: [AddressFinding] = []) -> AlertContext {
        let policy = hostPolicy
        return AlertContext(
            target: name, url: url, host: host, port: port, sinks: alertSinks, labels: labels, endpoint: endpoint,
            knownPins: policy.policy.configuredPins.map(\.description),
            includeSubdomains: policy.pattern.map { $0.kind != .exact } ?? false,
            notedHostname: policy.pattern?.description, pinsExpire: policy.policy.pinsExpire,
            minCertificateValidity: configuration.expectations.minCertificateValidity.map { .milliseconds(Int64($0 * 1_000)) },
            addresses: addresses, ruleOverrides: alertRules)
    }
}
