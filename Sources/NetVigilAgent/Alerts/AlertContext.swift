import Foundation

/// What the alert engine needs to know about a target besides its probe result: where alerts go and the
/// pin policy facts an RFC 7469 report carries.
public struct AlertContext: Sendable, Equatable {
    /// Configured target name.
    public var target: String
    /// The probed URL.
    public var url: String
    /// Host name of the URL (RFC 7469 `hostname`).
    public var host: String
    /// Port of the URL (RFC 7469 `port`).
    public var port: Int
    /// Sink names this target alerts (one outbox row per sink and alert).
    public var sinks: [String]
    /// The target's configured labels (top-level merged with its own), copied into every payload.
    public var labels: TargetLabels
    /// The target's `endpoint` label (`ProbeTarget.endpoint`).
    public var endpoint: String
    /// The pins of the policy for this host, as `sha256/BASE64`.
    public var knownPins: [String]
    /// Whether the policy's host pattern also covers subdomains (RFC 7469 `include-subdomains`).
    public var includeSubdomains: Bool
    /// The policy's host pattern, or the host when no pattern applies (RFC 7469 `noted-hostname`).
    public var notedHostname: String
    /// When the pins stop being enforced (RFC 7469 `effective-expiration-date`), nil when they do not expire.
    public var pinsExpire: Date?
    /// The target's `expect.min_cert_validity`: a leaf closer to its notAfter fails the probe and fires
    /// `cert_expiring` (not `target_down`).
    public var minCertificateValidity: Duration?
    /// `addresses: all`: what each address showed in this tick (empty for one-address targets); alerts name the
    /// failing addresses and the report carries their chains.
    public var addresses: [AddressFinding]
    /// The target's own rule settings (`targets[].rules`), applied over `alerts.rules`.
    public var ruleOverrides: AlertRuleOverrides

    public init(target: String, url: String, host: String, port: Int, sinks: [String], labels: TargetLabels = TargetLabels(),
                endpoint: String? = nil, knownPins: [String] = [],
                includeSubdomains: Bool = false, notedHostname: String? = nil, pinsExpire: Date? = nil,
                minCertificateValidity: Duration? = nil, addresses: [AddressFinding] = [],
                ruleOverrides: AlertRuleOverrides = AlertRuleOverrides()) {
        self.target = target
        self.url = url
        self.host = host
        self.port = port
        self.sinks = sinks
        self.labels = labels
        self.endpoint = endpoint ?? ProbeTarget.endpoint(of: url)
        self.knownPins = knownPins
        self.includeSubdomains = includeSubdomains
        self.notedHostname = notedHostname ?? host
        self.pinsExpire = pinsExpire
        self.minCertificateValidity = minCertificateValidity
        self.addresses = addresses
        self.ruleOverrides = ruleOverrides
    }
}
