import Synchronization

/// Fans daemon events out to subscribers (the feed's SSE clients) and keeps the most recent ones so a client
/// reconnecting with `Last-Event-ID` gets what it missed while that is still in memory.
///
/// Ids increase by one per event from 1. Events live once, in a ring of `capacity` entries shared by every
/// subscriber; a subscriber is only a cursor into that ring, so a slow or stalled one costs no memory. One that falls
/// so far behind that the ring has overwritten events it has not read gets ``Delivery/reset(missed:lastID:)`` and
/// continues from the newest event.
///
/// Locking: the hub's lock guards the ring and the subscriber table and is never held while calling out (no
/// continuation is resumed under it). Each ``EventSubscription`` has its own lock for its waiting reader; cancelling
/// a reader takes only that lock. So neither a publisher nor a cancelled reader ever waits for the other.
public final class EventHub: Sendable {
    /// An event with its id.
    public struct Entry: Sendable, Equatable {
        public let id: UInt64
        public let event: AgentEvent
    }

    /// What a subscriber reads next.
    public enum Delivery: Sendable, Equatable {
        /// The next event.
        case event(Entry)
        /// The subscriber fell behind: `missed` events were overwritten before it read them; it continues after
        /// `lastID` (the newest event). Re-read the full state (`/v1/status`) on this.
        case reset(missed: UInt64, lastID: UInt64)
        /// Nothing new before ``EventSubscription/interrupt()`` was called (the SSE keep-alive tick).
        case idle

        /// The event, for `.event`.
        public var entry: Entry? {
            if case .event(let entry) = self { return entry }
            return nil
        }

        /// The agent event, for `.event`.
        public var event: AgentEvent? { entry?.event }
    }

    /// Why a subscription was refused.
    public struct SubscribeError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The configured maximum of concurrent subscribers.
        public let limit: Int
        public var description: String { "too many event subscribers (limit \(limit)); try again later" }
    }

    /// What a cursor finds in the ring.
    enum Read {
        case entries([Entry])
        case behind(missed: UInt64, lastID: UInt64)
        case nothing
        case finished
    }

    private struct State {
        var nextID: UInt64 = 1
        var recent: [Entry] = []
        var head = 0
        /// Weak: a subscription nobody holds any more (e.g. a response that was never written) frees its slot.
        var subscribers: [Int: WeakSubscription] = [:]
        var nextSubscriber = 0
        var finished = false

        var lastID: UInt64 { nextID - 1 }
        /// The id of the oldest retained event (== nextID when none is retained).
        var oldestID: UInt64 { nextID - UInt64(recent.count) }

        mutating func pruneClosed() {
            subscribers = subscribers.filter { $0.value.subscription.map { !$0.isClosed } ?? false }
        }
    }

    /// How many recent events are kept for replay and for subscribers to catch up.
    public let capacity: Int
    /// How many subscribers may be open at once; `subscribe` throws beyond it.
    public let maxSubscribers: Int
    private let state = Mutex(State())

    public init(capacity: Int = 1_024, maxSubscribers: Int = 256) {
        precondition(capacity > 0, "EventHub capacity must be positive")
        precondition(maxSubscribers > 0, "EventHub maxSubscribers must be positive")
        self.capacity = capacity
        self.maxSubscribers = maxSubscribers
    }

    /// Publishes an event and wakes every subscriber; returns its id. Never waits for a subscriber.
    @discardableResult
    public func publish(_ event: AgentEvent) -> UInt64 {
        let (id, subscribers) = state.withLock { state -> (UInt64, [EventSubscription]) in
            let entry = Entry(id: state.nextID, event: event)
            state.nextID += 1
            if state.recent.count < capacity {
                state.recent.append(entry)
            } else {
                state.recent[state.head] = entry
                state.head = (state.head + 1) % capacity
            }
            state.pruneClosed()
            return (entry.id, state.subscribers.values.compactMap(\.subscription))
        }
        for subscriber in subscribers { subscriber.notify() }
        return id
    }

    /// The id of the newest event, 0 when none was published.
    public var lastID: UInt64 { state.withLock { $0.lastID } }

    /// Open subscriptions.
    public var subscriberCount: Int {
        state.withLock { state in
            state.pruneClosed()
            return state.subscribers.count
        }
    }

    /// Retained events with an id greater than `id`, oldest first.
    public func recent(after id: UInt64) -> [Entry] {
        state.withLock { Self.ordered($0).filter { $0.id > id } }
    }

    /// A subscription: first the retained events after `lastID` (all retained ones when `lastID` is older than
    /// them; none when nil), then live ones. Close it (or cancel its reader) when done.
    /// - Throws: ``SubscribeError`` when `maxSubscribers` are open.
    public func subscribe(after lastID: UInt64? = nil) throws(SubscribeError) -> EventSubscription {
        let made = state.withLock { state -> (EventSubscription, Bool)? in
            state.pruneClosed()
            guard state.subscribers.count < maxSubscribers else { return nil }
            let cursor = lastID.map { max($0, state.oldestID - 1) } ?? state.lastID
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            let subscription = EventSubscription(hub: self, key: key, cursor: cursor)
            if !state.finished { state.subscribers[key] = WeakSubscription(subscription: subscription) }
            return (subscription, state.finished)
        }
        guard let (subscription, finished) = made else { throw SubscribeError(limit: maxSubscribers) }
        if finished { subscription.finish() }
        return subscription
    }

    /// Ends every subscription (daemon shutdown): readers get what is left, then the end.
    public func finish() {
        let subscribers = state.withLock { state -> [EventSubscription] in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.compactMap(\.subscription)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Up to `limit` events after `cursor`, or how far behind the cursor is.
    func read(after cursor: UInt64, limit: Int) -> Read {
        state.withLock { state in
            let oldest = state.oldestID
            if cursor + 1 < oldest {
                return .behind(missed: oldest - 1 - cursor, lastID: state.lastID)
            }
            guard cursor < state.lastID else { return state.finished ? .finished : .nothing }
            let skip = Int(cursor + 1 - oldest)
            let count = min(limit, Int(state.lastID - cursor))
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for offset in skip..<(skip + count) {
                entries.append(state.recent[(state.head + offset) % state.recent.count])
            }
            return .entries(entries)
        }
    }

    /// Removes a closed subscription from the table.
    func remove(_ key: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: key) }
    }

    struct WeakSubscription {
        weak var subscription: EventSubscription?
    }

    private static func ordered(_ state: State) -> [Entry] {
        Array(state.recent[state.head...] + state.recent[..<state.head])
    }
}
