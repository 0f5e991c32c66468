import NetVigilStore

/// What the engine decided for one probe result: outbox rows to commit with the result, events for the feed.
public struct AlertDecision: Sendable, Equatable {
    /// One pending row per (alert, sink), payload ready; write them in the same `WriteBatch` as the probe record.
    public var rows: [AlertRecord]
    /// Alert state changes and reminders, for the event hub.
    public var events: [AlertEvent]

    public init(rows: [AlertRecord] = [], events: [AlertEvent] = []) {
        self.rows = rows
        self.events = events
    }

    /// True when nothing fired, reminded or resolved.
    public var isEmpty: Bool { rows.isEmpty && events.isEmpty }
}
