import Foundation
import NetVigilStore

/// One alert as Alertmanager's `POST /api/v2/alerts` takes it (a `postableAlert`), made from an outbox payload.
///
/// Alertmanager identifies an alert by its labels, so sending the same alert again (a retry, a re-send) updates it
/// instead of adding one: deliveries are idempotent without a key.
public struct AlertmanagerAlert: Sendable, Encodable, Equatable {
    public var labels: [String: String]
    public var annotations: [String: String]
    public var startsAt: Timestamp?
    public var endsAt: Timestamp

    /// The alert for `payload`: a firing one is active until `validUntil`, a resolved one ends at its time.
    /// - Parameters:
    ///   - instance: the `instance` label (this host's name).
    ///   - labels: the sink's extra labels; the target's own `labels:` win over them, netvigil's own names over both.
    public init(payload: AlertPayload, instance: String, labels extra: [String: String], validUntil: Timestamp) {
        let kind = AlertRuleKind(rawValue: payload.kind)
        var labels = extra
        for (name, value) in payload.labels.pairs { labels[name] = value }
        labels["endpoint"] = payload.endpoint
        labels["alertname"] = kind?.alertName ?? "Netvigil_\(payload.kind)"
        labels["target"] = payload.target
        labels["instance"] = instance
        labels["severity"] = kind?.severity ?? "warning"
        self.labels = labels
        let title = kind?.title ?? payload.kind.replacingOccurrences(of: "_", with: " ")
        let since = payload.since.map { " since \($0.rfc3339)" } ?? ""
        var description = payload.state == .firing
            ? "netvigil on \(instance) reports \(title) for target \(payload.target) (\(payload.url))\(since): \(payload.message)"
            : "netvigil on \(instance): \(payload.message)"
        description += ". The report annotation holds the served chain and the known pins (RFC 7469 report)."
        var annotations = ["summary": payload.message, "description": description, "url": payload.url]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let report = try? encoder.encode(payload.report) { annotations["report"] = String(decoding: report, as: UTF8.self) }
        self.annotations = annotations
        if payload.state == .firing {
            startsAt = payload.since ?? payload.time
            endsAt = validUntil
        } else {
            startsAt = nil
            endsAt = payload.time
        }
    }

    /// An alert from its parts (the fleet hub's alerts, ``AlertNotice``).
    init(labels: [String: String], annotations: [String: String], startsAt: Timestamp?, endsAt: Timestamp) {
        self.labels = labels
        self.annotations = annotations
        self.startsAt = startsAt
        self.endsAt = endsAt
    }

    /// This host's name (`gethostname`), the `instance` label of every alert.
    public static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }()

    /// The request body for `alerts`: a JSON array, keys sorted.
    static func body(_ alerts: [AlertmanagerAlert]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(alerts), as: UTF8.self)
    }
}
