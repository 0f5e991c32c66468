import Synchronization

/// Fans daemon events out to subscribers (the feed's SSE clients) and keeps the most recent ones so a client
/// reconnecting with `Last-Event-ID` gets what it missed while that is still in memory.
///
/// Ids increase by one per event from 1. A slow subscriber never blocks publishers: its stream buffers up to
/// `capacity` events and drops the oldest beyond that (it can reconnect with its last id to catch up).
public final class EventHub: Sendable {
    /// An event with its id.
    public struct Entry: Sendable, Equatable {
        public let id: UInt64
        public let event: AgentEvent
    }

    private struct State {
        var nextID: UInt64 = 1
        var recent: [Entry] = []
        var head = 0
        var subscribers: [Int: AsyncStream<Entry>.Continuation] = [:]
        var nextSubscriber = 0
    }

    /// How many recent events are kept for replay (and buffered per subscriber).
    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 1_024) {
        precondition(capacity > 0, "EventHub capacity must be positive")
        self.capacity = capacity
    }

    /// Publishes an event to every subscriber; returns its id.
    @discardableResult
    public func publish(_ event: AgentEvent) -> UInt64 {
        state.withLock { state in
            let entry = Entry(id: state.nextID, event: event)
            state.nextID += 1
            if state.recent.count < capacity {
                state.recent.append(entry)
            } else {
                state.recent[state.head] = entry
                state.head = (state.head + 1) % capacity
            }
            for continuation in state.subscribers.values { continuation.yield(entry) }
            return entry.id
        }
    }

    /// The id of the newest event, 0 when none was published.
    public var lastID: UInt64 { state.withLock { $0.nextID - 1 } }

    /// Retained events with an id greater than `id`, oldest first.
    public func recent(after id: UInt64) -> [Entry] {
        state.withLock { Self.ordered($0).filter { $0.id > id } }
    }

    /// A stream of events: first the retained ones after `lastID` (none when nil), then live ones.
    /// The stream ends when the consumer stops iterating (the subscription is removed).
    public func subscribe(after lastID: UInt64? = nil) -> AsyncStream<Entry> {
        let (stream, continuation) = AsyncStream<Entry>.makeStream(bufferingPolicy: .bufferingNewest(capacity))
        let key = state.withLock { state -> Int in
            if let lastID {
                for entry in Self.ordered(state) where entry.id > lastID { continuation.yield(entry) }
            }
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key] = continuation
            return key
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Ends every subscription (daemon shutdown).
    public func finish() {
        let continuations = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    private static func ordered(_ state: State) -> [Entry] {
        Array(state.recent[state.head...] + state.recent[..<state.head])
    }
}
