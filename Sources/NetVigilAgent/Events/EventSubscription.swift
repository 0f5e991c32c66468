import NetVigilConcurrency
import Synchronization

/// One reader of an ``EventHub``: a cursor into the hub's ring of recent events, read with ``next()``.
///
/// It holds at most one small batch of events of its own, however slow its reader is. Only one task may read it.
/// Cancelling the reading task ends it; so do ``close()`` and the hub's `finish()`. Cancellation and wake-ups take
/// only this subscription's lock, never the hub's.
public final class EventSubscription: AsyncSequence, Sendable {
    public typealias Element = EventHub.Delivery

    private struct State {
        /// The id of the last event handed out (or skipped by a reset).
        var cursor: UInt64
        /// Events read from the ring but not yet handed out.
        var pending: [EventHub.Entry] = []
        var interrupted = false
        var finished = false
        var cancelled = false
    }

    private enum Step {
        case deliver(EventHub.Delivery)
        case read(UInt64)
        case end
    }

    /// Events taken from the ring at a time.
    static let batchSize = 32

    private let hub: EventHub
    let key: Int
    private let state: Mutex<State>
    /// Wakes the reader: new events, an interrupt, the end.
    private let waker = Waker()
    private let closed = Atomic<Bool>(false)

    init(hub: EventHub, key: Int, cursor: UInt64) {
        self.hub = hub
        self.key = key
        state = Mutex(State(cursor: cursor))
    }

    /// Whether the subscription has ended (the hub drops it from its table).
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// The next delivery; waits for one. Nil once the hub finished and everything was read, or after cancellation
    /// or ``close()``.
    public func next() async -> EventHub.Delivery? {
        while true {
            let cancelled = Task.isCancelled
            let step = state.withLock { state -> Step in
                if cancelled { state.cancelled = true }
                if state.cancelled { return .end }
                if !state.pending.isEmpty { return .deliver(.event(state.pending.removeFirst())) }
                if state.interrupted {
                    state.interrupted = false
                    return .deliver(.idle)
                }
                // A publish after this point wakes the waker, which keeps the wake: none is missed.
                return .read(state.cursor)
            }
            let cursor: UInt64
            switch step {
            case .end:
                markClosed()
                return nil
            case .deliver(let delivery):
                return delivery
            case .read(let value):
                cursor = value
            }
            switch hub.read(after: cursor, limit: Self.batchSize) {
            case .entries(let entries):
                state.withLock { state in
                    state.cursor = entries[entries.count - 1].id
                    state.pending = Array(entries.dropFirst())
                }
                return .event(entries[0])
            case .behind(let missed, let lastID):
                state.withLock { $0.cursor = lastID }
                return .reset(missed: missed, lastID: lastID)
            case .finished:
                markClosed()
                return nil
            case .nothing:
                if state.withLock({ $0.finished }) {
                    markClosed()
                    return nil
                }
                // A wake that came after the read above is kept, so this returns at once then; a cancelled wait
                // returns too, and the next pass ends the subscription.
                await waker.wait()
            }
        }
    }

    /// Makes a waiting (or the next) ``next()`` return ``EventHub/Delivery/idle`` when there is nothing new.
    public func interrupt() {
        wake { $0.interrupted = true }
    }

    /// Ends the subscription and frees its slot in the hub.
    public func close() {
        wake { $0.cancelled = true }
        markClosed()
        hub.remove(key)
    }

    /// New events may be in the ring.
    func notify() {
        waker.wake()
    }

    /// The hub finished: the reader gets what is left, then the end.
    func finish() {
        wake { $0.finished = true }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription
        public mutating func next() async -> EventHub.Delivery? { await subscription.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }

    /// Changes the state, then wakes a waiting (or the next) reader.
    private func wake(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        waker.wake()
    }

    private func markClosed() {
        closed.store(true, ordering: .releasing)
    }
}
