import Foundation
import NetVigilStore

/// The JSON body a webhook receives (and an exec sink reads on stdin).
public struct AlertPayload: Sendable, Codable, Equatable {
    /// Rule kind, e.g. `pin_mismatch`.
    public var kind: String
    public var state: AlertEvent.State
    public var target: String
    public var url: String
    /// When the alert was raised.
    public var time: Timestamp
    /// Unique per (alert, sink); also the `Idempotency-Key` header / `NETVIGIL_IDEMPOTENCY_KEY`.
    public var idempotencyKey: String
    /// One line for people.
    public var message: String
    /// True for a reminder of an alert that keeps firing.
    public var reminder: Bool
    /// When the alert started firing (firing alerts only).
    public var since: Timestamp?
    /// The RFC 7469 report of the probe result that raised the alert.
    public var report: PinValidationReport
    /// The target's configured labels (`labels:`, top level merged with the target's own); `{}` without any.
    public var labels: TargetLabels
    /// The URL without credentials, query or fragment: the `endpoint` label of the target's series.
    public var endpoint: String

    enum CodingKeys: String, CodingKey {
        case kind, state, target, url, time
        case idempotencyKey = "idempotency_key"
        case message, reminder, since, report, labels, endpoint
    }

    public init(kind: String, state: AlertEvent.State, target: String, url: String, time: Timestamp, idempotencyKey: String,
                message: String, reminder: Bool = false, since: Timestamp? = nil, report: PinValidationReport,
                labels: TargetLabels = TargetLabels(), endpoint: String? = nil) {
        self.kind = kind
        self.state = state
        self.target = target
        self.url = url
        self.time = time
        self.idempotencyKey = idempotencyKey
        self.message = message
        self.reminder = reminder
        self.since = since
        self.report = report
        self.labels = labels
        self.endpoint = endpoint ?? ProbeTarget.endpoint(of: url)
    }

    /// Decodes a payload; rows stored before labels existed decode with no labels and the endpoint of their URL.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        state = try container.decode(AlertEvent.State.self, forKey: .state)
        target = try container.decode(String.self, forKey: .target)
        url = try container.decode(String.self, forKey: .url)
        time = try container.decode(Timestamp.self, forKey: .time)
        idempotencyKey = try container.decode(String.self, forKey: .idempotencyKey)
        message = try container.decode(String.self, forKey: .message)
        reminder = try container.decode(Bool.self, forKey: .reminder)
        since = try container.decodeIfPresent(Timestamp.self, forKey: .since)
        report = try container.decode(PinValidationReport.self, forKey: .report)
        labels = try container.decodeIfPresent(TargetLabels.self, forKey: .labels) ?? TargetLabels()
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint) ?? ProbeTarget.endpoint(of: url)
    }

    /// Compact JSON with sorted keys and unescaped slashes.
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Decodes a stored payload.
    public static func decode(_ text: String) throws -> AlertPayload {
        try JSONDecoder().decode(AlertPayload.self, from: Data(text.utf8))
    }
}
