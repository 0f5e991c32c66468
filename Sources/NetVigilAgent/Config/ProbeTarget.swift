import Foundation
import NetVigilProber
import NetVigilReachability
import NetVigilTrust

/// One configured probe target, ready to run: the serialized request and everything the prober needs.
///
/// A value whose fields live in one immutable box that every copy shares: the configuration's list, the
/// scheduler's slots, the targets' states and each probe hold 8 bytes per target rather than ~600, so 10,000
/// targets are held once. Setting a field (done only while the configuration is read) makes a new box.
public struct ProbeTarget: Sendable {
    /// The fields, shared by this target's copies.
    var storage: Storage

    /// Unique name (metrics label, history key).
    public var name: String {
        get { storage.fields.name }
        set { setField(\.name, newValue) }
    }
    /// The configured URL (query parameters not yet appended).
    public var url: String {
        get { storage.fields.url }
        set { setField(\.url, newValue) }
    }
    /// The URL's host, lower-cased, without brackets for IPv6.
    public var host: String {
        get { storage.fields.host }
        set { setField(\.host, newValue) }
    }
    /// The URL's port (default 80/443).
    public var port: Int {
        get { storage.fields.port }
        set { setField(\.port, newValue) }
    }
    /// Time between probe starts.
    public var interval: Duration {
        get { storage.fields.interval }
        set { setField(\.interval, newValue) }
    }
    /// Whole-probe timeout.
    public var timeout: Duration {
        get { storage.fields.timeout }
        set { setField(\.timeout, newValue) }
    }
    /// The request as sent (query, headers, body).
    public var request: ProbeRequest {
        get { storage.fields.request }
        set { setField(\.request, newValue) }
    }
    /// Timeouts, policies, trust anchors, serializers, expectations.
    public var configuration: ProbeConfiguration {
        get { storage.fields.configuration }
        set { setField(\.configuration, newValue) }
    }
    /// Sinks alerted for this target (all configured sinks unless the target names some).
    public var alertSinks: [String] {
        get { storage.fields.alertSinks }
        set { setField(\.alertSinks, newValue) }
    }
    /// Whether `alerts:` was given explicitly (an empty list silences the target).
    public var alertSinksExplicit: Bool {
        get { storage.fields.alertSinksExplicit }
        set { setField(\.alertSinksExplicit, newValue) }
    }
    /// The top-level `labels:` merged with the target's own (carried by its series, alerts and status entry).
    public var labels: TargetLabels {
        get { storage.fields.labels }
        set { setField(\.labels, newValue) }
    }
    /// The target's `rules:`: its own alert rule settings over `alerts.rules`.
    public var alertRules: AlertRuleOverrides {
        get { storage.fields.alertRules }
        set { setField(\.alertRules, newValue) }
    }
    /// The `endpoint` label: the URL without credentials, query or fragment (a query may carry a secret), so agents
    /// probing the same endpoint can be matched across hosts.
    public var endpoint: String {
        get { storage.fields.endpoint }
        set { setField(\.endpoint, newValue) }
    }
    /// Identifies the effective settings (the target's YAML, the policies and the loaded pins, certificates and
    /// anchors): a reload restarts a target only when this changes.
    public var fingerprint: String {
        get { storage.fields.fingerprint }
        set { setField(\.fingerprint, newValue) }
    }
    /// Located warnings of the target's own settings (a client key others may read).
    public var warnings: [String] {
        get { storage.fields.warnings }
        set { setField(\.warnings, newValue) }
    }
    /// `addresses: all`: every address of the host is probed each tick, one result each.
    public var probesEachAddress: Bool {
        get { storage.fields.probesEachAddress }
        set { setField(\.probesEachAddress, newValue) }
    }
    /// `source:`: the paths probed each tick, one result (or one per address) each; empty: the kernel's route.
    public var sources: [ProbeSource] {
        get { storage.fields.sources }
        set { setField(\.sources, newValue) }
    }

    /// The policy that applies to the target's own host, and the pattern that selected it (nil: default policy).
    public var hostPolicy: (policy: SecurityPolicy, pattern: HostPattern?) {
        let entry = configuration.policies.entry(for: host)
        return (entry?.policy ?? configuration.policies.defaultPolicy, entry?.pattern)
    }

    /// The reachability target watched for this probe's host (`default`-independent); with `connect_to`, its
    /// first address (the host name may not resolve at all).
    public var reachabilityTarget: ReachabilityTarget? { storage.reachabilityTarget }

    /// The labels added to the target's probe series after `target`: `endpoint`, then the configured labels.
    public var seriesLabels: [(String, String)] {
        [("endpoint", endpoint)] + labels.pairs.map { ($0.name, $0.value) }
    }

    /// `scheme://host[:port]/path` of `url`: no user, password, query or fragment; default ports left out.
    public static func endpoint(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased() else { return "" }
        return endpoint(scheme: scheme, host: host, port: components.port, percentEncodedPath: components.percentEncodedPath)
    }

    /// `endpoint(of:)` from a URL's parts: `scheme` and `host` lowercased, `port` nil or the scheme's default left out.
    static func endpoint(scheme: String, host: String, port: Int?, percentEncodedPath: String) -> String {
        let defaultPort = ServiceScheme(name: scheme)?.defaultPort ?? (scheme == "https" ? 443 : 80)
        let port = port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let path = percentEncodedPath.isEmpty ? "/" : percentEncodedPath
        return "\(scheme)://\(bracketed)\(port)\(path)"
    }

    /// Whether a reloaded target can keep running as it is.
    public func isEquivalent(to other: ProbeTarget) -> Bool { fingerprint == other.fingerprint }

    /// Whether the target uses TLS (https:// and every `ServiceScheme`).
    public var isTLS: Bool { request.url.scheme?.lowercased() == "https" || ServiceScheme(url: request.url) != nil }
}
