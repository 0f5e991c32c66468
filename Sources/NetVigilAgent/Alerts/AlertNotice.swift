import NetVigilProber
import NetVigilStore
import NetVigilTrust

/// An alert raised outside this agent's rules (the fleet hub's, issue #54), as every kind of sink takes it: the JSON
/// body and idempotency key for webhook and exec sinks (in `record`), labels and annotations for Alertmanager.
public struct AlertNotice: Sendable {
    public var record: AlertRecord
    /// Alertmanager labels (`alertname`, `severity`, …); the sink's own `labels:` are added under them.
    public var labels: [String: String]
    public var annotations: [String: String]
    public var firing: Bool
    /// When the alert started firing.
    public var startsAt: Timestamp

    public init(record: AlertRecord, labels: [String: String], annotations: [String: String], firing: Bool,
                startsAt: Timestamp) {
        self.record = record
        self.labels = labels
        self.annotations = annotations
        self.firing = firing
        self.startsAt = startsAt
    }
}

extension AlertSink {
    /// Delivers `notice` as this sink delivers the agent's own alerts: acknowledged only by a 2xx status (webhook,
    /// Alertmanager) or exit status 0 (exec). A firing notice stays active in Alertmanager for the sink's validity
    /// (its `resend_interval` × 4), so the sender re-sends it while it fires.
    public func deliver(_ notice: AlertNotice, prober: Prober,
                        systemTrustStore: () throws(AlertDeliveryError) -> TrustStore) async throws(AlertDeliveryError) {
        switch kind {
        case .webhook(let webhook):
            try await webhook.deliver(notice.record, prober: prober, trustStore: try systemTrustStore())
        case .exec(let exec):
            try await exec.deliver(notice.record)
        case .alertmanager(let alertmanager):
            var labels = alertmanager.labels
            for (name, value) in notice.labels { labels[name] = value }
            let now = Timestamp.now()
            let alert = AlertmanagerAlert(labels: labels, annotations: notice.annotations,
                                          startsAt: notice.firing ? notice.startsAt : nil,
                                          endsAt: notice.firing ? now.adding(alertmanager.validity) : notice.record.time)
            try await alertmanager.post([alert], prober: prober, systemTrustStore: systemTrustStore)
        }
    }

    /// The Alertmanager sink's `resend_interval`; nil for other sinks.
    public var alertmanagerResendInterval: Duration? {
        if case .alertmanager(let alertmanager) = kind { return alertmanager.resendInterval }
        return nil
    }
}
