import Foundation
import NetVigilProber
import NetVigilTrust

/// `alertmanager:` — POST alerts to Alertmanager's `/api/v2/alerts`, where routing, grouping, silences and the
/// receivers (Slack, e-mail, PagerDuty, ...) happen. Firing alerts are re-sent every `resend_interval`, because
/// Alertmanager resolves an alert that is not re-sent before its `endsAt`.
public struct AlertmanagerSink: Sendable, Equatable, CustomStringConvertible {
    static let allowedKeys = ["url", "timeout", "headers", "tls", "labels", "resend_interval"]
    /// How much longer than `resend_interval` a sent alert stays active in Alertmanager without a re-send.
    static let endsAtFactor = 3

    /// Alertmanager's base URL (`http://HOST:9093`, or with its `--web.route-prefix`).
    public var url: URL
    /// The whole request (default 10 s).
    public var timeout: Duration
    /// Extra headers, in order (e.g. `Authorization` for a proxy in front of Alertmanager).
    public var headers: [AlertHeader]
    /// Extra labels on every alert of this sink, by name.
    public var labels: [String: String]
    /// How often firing alerts are re-sent (default 1 m); each send is valid for 3 × this.
    public var resendInterval: Duration
    /// `tls:` for an https URL: extra CA files, system roots, lowest version (no pinning).
    public var tls: TLSSettings

    public init(url: URL, timeout: Duration = .seconds(10), headers: [AlertHeader] = [], labels: [String: String] = [:],
                resendInterval: Duration = .seconds(60)) {
        self.url = url
        self.timeout = timeout
        self.headers = headers
        self.labels = labels
        self.resendInterval = resendInterval
        tls = TLSSettings()
    }

    /// `alertmanager http://host:9093`; user info and query are not shown.
    public var description: String { "alertmanager \(WebhookSink.displayed(url))" }

    /// `<url>/api/v2/alerts` (kept as is when the URL already names that path).
    public var alertsEndpoint: String {
        let text = url.absoluteString
        if url.path.hasSuffix("/api/v2/alerts") { return text }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let base = components?.path ?? ""
        components?.path = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/api/v2/alerts"
        return components?.string ?? text
    }

    /// How long one send keeps an alert active: `endsAt` = send time + this.
    public var validity: Duration { resendInterval * Self.endsAtFactor }

    public static func == (lhs: AlertmanagerSink, rhs: AlertmanagerSink) -> Bool {
        lhs.url == rhs.url && lhs.timeout == rhs.timeout && lhs.headers == rhs.headers && lhs.labels == rhs.labels
            && lhs.resendInterval == rhs.resendInterval && lhs.tls.caPaths == rhs.tls.caPaths
            && lhs.tls.systemRoots == rhs.tls.systemRoots && lhs.tls.tls == rhs.tls.tls
    }

    init(reading mapping: ConfigMapping) throws {
        self.init(url: try WebhookSink.httpURL(try mapping.required("url")))
        if let value = mapping["timeout"] { timeout = try value.duration(minimum: .milliseconds(100)) }
        if let value = mapping["headers"] { headers = try AlertHeader.list(reading: value) }
        if let value = mapping["resend_interval"] { resendInterval = try value.duration(minimum: .seconds(1)) }
        // The same names and rules as a target's `labels:` (netvigil's own names, `alertname` and `severity` among
        // them, are refused).
        if let value = mapping["labels"] { labels = try TargetLabels(reading: value).dictionary }
        if let value = mapping["tls"] { tls = try TLSSettings(readingConnection: value) }
    }
}
