/// Delivery state of an alert in the outbox.
public enum AlertDeliveryState: String, Sendable, Codable, CaseIterable {
    /// Waiting for (re)delivery.
    case pending
    /// A sink acknowledged it (2xx / exit 0).
    case delivered
    /// Given up on after the maximum number of attempts.
    case failed
}

/// One alert in the `alerts` outbox table.
public struct AlertRecord: Sendable, Equatable, Codable {
    /// Row id; nil before it is stored.
    public var id: Int64?
    public var time: Timestamp
    /// Rule kind, e.g. `pin_mismatch`, `cert_expiring`, `pins_expired`, `key_changed`.
    public var kind: String
    public var target: String
    /// Sink name this row is for.
    public var sink: String
    /// The webhook body (JSON object text).
    public var payloadJSON: String
    public var state: AlertDeliveryState
    public var attempts: Int
    public var nextAttemptAt: Timestamp
    /// Unique per (alert, sink); sent as `Idempotency-Key`.
    public var idempotencyKey: String
    public var lastError: String?
    public var deliveredAt: Timestamp?

    public init(id: Int64? = nil, time: Timestamp, kind: String, target: String, sink: String, payloadJSON: String,
                state: AlertDeliveryState = .pending, attempts: Int = 0, nextAttemptAt: Timestamp,
                idempotencyKey: String, lastError: String? = nil, deliveredAt: Timestamp? = nil) {
        self.id = id
        self.time = time
        self.kind = kind
        self.target = target
        self.sink = sink
        self.payloadJSON = payloadJSON
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.idempotencyKey = idempotencyKey
        self.lastError = lastError
        self.deliveredAt = deliveredAt
    }
}
