import Crypto
import Foundation
import NetVigilAgent
import NetVigilStore

/// What one evaluation changes in the fleet's alerts (no I/O): from the alerts stored in `fleet_alerts` and the
/// conditions true now, the alerts that start firing, the ones that resolve, and the notices for the outbox.
///
/// Run by whichever hub holds the evaluation lock, on the rows it read under that lock, so that several hubs write
/// each notice once. An event (`server_key_changed`) fires once and resolves after ``eventDuration`` by itself.
public struct FleetAlertPlan: Sendable, Equatable {
    /// A row of `fleet_alerts`.
    public struct StoredAlert: Sendable, Equatable {
        public var key: String
        public var kind: FleetCondition.Kind
        public var subject: String
        public var firing: Bool
        public var since: Timestamp
        /// When a notice for it was last written (Alertmanager re-sends count from here).
        public var updated: Timestamp
        public var payload: FleetAlertPayload

        public init(key: String, kind: FleetCondition.Kind, subject: String, firing: Bool, since: Timestamp,
                    updated: Timestamp, payload: FleetAlertPayload) {
            self.key = key
            self.kind = kind
            self.subject = subject
            self.firing = firing
            self.since = since
            self.updated = updated
            self.payload = payload
        }
    }

    /// A row to write to `fleet_alert_outbox`.
    public struct Notice: Sendable, Equatable {
        public var alertKey: String
        public var sink: String
        public var payload: FleetAlertPayload
    }

    /// How long an event stays firing (so that Alertmanager shows a rotation for a while, then lets it go).
    public static let eventDuration = Duration.seconds(3600)

    /// Alerts to store as firing (new, or re-fired after they resolved), by key.
    public var fire: [StoredAlert] = []
    /// Alerts to store as resolved.
    public var resolve: [StoredAlert] = []
    /// Firing alerts whose `updated` moves to now (Alertmanager re-sends).
    public var touched: [String] = []
    public var notices: [Notice] = []

    /// - Parameters:
    ///   - sinks: every configured sink's name.
    ///   - resendSinks: the Alertmanager sinks and their `resend_interval`: a firing alert is sent to them again once
    ///     that long has passed since its last notice, so that Alertmanager keeps it active.
    public init(stored: [StoredAlert], conditions: [FleetCondition], now: Timestamp, sinks: [String],
                resendSinks: [(name: String, interval: Duration)], hub: String) {
        let storedByKey = Dictionary(stored.map { ($0.key, $0) }) { first, _ in first }
        let current = Dictionary(conditions.map { ($0.key, $0) }) { first, _ in first }
        for condition in conditions {
            if let existing = storedByKey[condition.key], existing.firing { continue }
            let payload = FleetAlertPayload(condition: condition, state: .firing, time: now, since: now, hub: hub)
            let alert = StoredAlert(key: condition.key, kind: condition.kind, subject: condition.subject, firing: true,
                                    since: now, updated: now, payload: payload)
            fire.append(alert)
            notices += sinks.map { Notice(alertKey: alert.key, sink: $0, payload: payload.forSink($0, transition: "firing")) }
        }
        for alert in stored where alert.firing {
            let ended = alert.kind == .serverKeyChanged
                ? now.milliseconds - alert.since.milliseconds >= Int64(Self.eventDuration.seconds * 1000)
                : current[alert.key] == nil
            if ended {
                var payload = alert.payload
                payload.state = .resolved
                payload.time = now
                payload.message = "resolved: " + alert.payload.message
                var resolved = alert
                resolved.firing = false
                resolved.updated = now
                resolved.payload = payload
                resolve.append(resolved)
                notices += sinks.map { Notice(alertKey: alert.key, sink: $0, payload: payload.forSink($0, transition: "resolved")) }
                continue
            }
            let due = resendSinks.filter { now.milliseconds - alert.updated.milliseconds >= Int64($0.interval.seconds * 1000) }
            if !due.isEmpty {
                touched.append(alert.key)
                var payload = alert.payload
                payload.time = now
                notices += due.map {
                    Notice(alertKey: alert.key, sink: $0.name,
                           payload: payload.forSink($0.name, transition: "resend-\(now.milliseconds)"))
                }
            }
        }
    }

    public var isEmpty: Bool { fire.isEmpty && resolve.isEmpty && touched.isEmpty && notices.isEmpty }
}

/// The JSON a sink receives for a fleet alert (a webhook's body, an exec sink's stdin; Alertmanager gets it as
/// labels and annotations). It shares the agent payload's `kind`, `state`, `target`, `url`, `time`, `since`,
/// `idempotency_key` and `message`, so that one receiver reads both.
public struct FleetAlertPayload: Sendable, Codable, Equatable {
    public var kind: String
    public var state: AlertEvent.State
    public var severity: FleetCondition.Severity
    /// The endpoint or the agent.
    public var target: String
    /// The endpoint for the endpoint kinds; empty for the agent kinds.
    public var url: String
    public var time: Timestamp
    public var since: Timestamp?
    public var idempotencyKey: String
    public var message: String
    public var sites: [String]
    public var agents: [String]
    public var spki: String?
    public var issuer: String?
    /// The hub that wrote the notice (its host name).
    public var hub: String

    enum CodingKeys: String, CodingKey {
        case kind, state, severity, target, url, time, since, message, sites, agents, spki, issuer, hub
        case idempotencyKey = "idempotency_key"
    }

    init(condition: FleetCondition, state: AlertEvent.State, time: Timestamp, since: Timestamp, hub: String) {
        kind = condition.kind.rawValue
        self.state = state
        severity = condition.severity
        target = condition.subject
        url = condition.kind == .agentSilent || condition.kind == .agentBehind ? "" : condition.subject
        self.time = time
        self.since = since
        idempotencyKey = ""
        message = condition.message
        sites = condition.sites
        agents = condition.agents
        spki = condition.spki
        issuer = condition.issuer
        self.hub = hub
    }

    /// A copy for one sink and transition, with its own idempotency key (stable for the same alert, start, transition
    /// and sink, so a notice written twice is delivered once: the outbox's key is unique).
    func forSink(_ sink: String, transition: String) -> FleetAlertPayload {
        var copy = self
        let identity = [kind, target, url, spki ?? "", String(since?.milliseconds ?? 0), transition, sink].joined(separator: "\u{1f}")
        copy.idempotencyKey = "fleet-" + SHA256.hash(data: Data(identity.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return copy
    }

    /// Compact JSON with sorted keys and unescaped slashes.
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    public static func decode(_ text: String) throws -> FleetAlertPayload {
        try JSONDecoder().decode(FleetAlertPayload.self, from: Data(text.utf8))
    }
}
