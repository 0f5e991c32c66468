import Foundation
import NetVigilHTTP
import NetVigilReachability
import NetVigilTrust

/// One configured probe target, ready to run: the serialized request and everything the prober needs.
public struct ProbeTarget: Sendable {
    /// Unique name (metrics label, history key).
    public var name: String
    /// The configured URL (query parameters not yet appended).
    public var url: String
    /// The URL's host, lower-cased, without brackets for IPv6.
    public var host: String
    /// The URL's port (default 80/443).
    public var port: Int
    /// Time between probe starts.
    public var interval: Duration
    /// Whole-probe timeout.
    public var timeout: Duration
    /// The request as sent (query, headers, body).
    public var request: ProbeRequest
    /// Timeouts, policies, trust anchors, serializers, expectations.
    public var configuration: ProbeConfiguration
    /// Sinks alerted for this target (all configured sinks unless the target names some).
    public var alertSinks: [String]
    /// Whether `alerts:` was given explicitly (an empty list silences the target).
    public var alertSinksExplicit: Bool
    /// The top-level `labels:` merged with the target's own (carried by its series, alerts and status entry).
    public var labels = TargetLabels()
    /// The target's `rules:`: its own alert rule settings over `alerts.rules`.
    public var alertRules = AlertRuleOverrides()
    /// The `endpoint` label: the URL without credentials, query or fragment (a query may carry a secret), so agents
    /// probing the same endpoint can be matched across hosts.
    public var endpoint: String = ""
    /// Identifies the effective settings (the target's YAML, the policies and the loaded pins, certificates and
    /// anchors): a reload restarts a target only when this changes.
    public var fingerprint: String
    /// Located warnings of the target's own settings (a client key others may read).
    public var warnings: [String] = []
    /// `addresses: all`: every address of the host is probed each tick, one result each.
    public var probesEachAddress = false
    /// `source:`: the paths probed each tick, one result (or one per address) each; empty: the kernel's route.
    public var sources: [ProbeSource] = []

    /// The policy that applies to the target's own host, and the pattern that selected it (nil: default policy).
    public var hostPolicy: (policy: SecurityPolicy, pattern: HostPattern?) {
        let entry = configuration.policies.entry(for: host)
        return (entry?.policy ?? configuration.policies.defaultPolicy, entry?.pattern)
    }

    /// The reachability target watched for this probe's host (`default`-independent); with `connect_to`, its
    /// first address (the host name may not resolve at all).
    public var reachabilityTarget: ReachabilityTarget? {
        try? ReachabilityTarget(parsing: configuration.connectTo?.addresses.first ?? host)
    }

    /// The labels added to the target's probe series after `target`: `endpoint`, then the configured labels.
    public var seriesLabels: [(String, String)] {
        [("endpoint", endpoint)] + labels.pairs.map { ($0.name, $0.value) }
    }

    /// `scheme://host[:port]/path` of `url`: no user, password, query or fragment; default ports left out.
    public static func endpoint(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased() else { return "" }
        let defaultPort = ServiceScheme(name: scheme)?.defaultPort ?? (scheme == "https" ? 443 : 80)
        let port = components.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(bracketed)\(port)\(path)"
    }

    /// Whether a reloaded target can keep running as it is.
    public func isEquivalent(to other: ProbeTarget) -> Bool { fingerprint == other.fingerprint }

    /// Whether the target uses TLS (https:// and every `ServiceScheme`).
    public var isTLS: Bool { request.url.scheme?.lowercased() == "https" || ServiceScheme(url: request.url) != nil }
}
