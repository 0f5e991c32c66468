import Synchronization

/// The latest evaluation of each watched target and the `changes(for:)` subscribers, behind one lock.
///
/// The watcher thread publishes into it directly: each subscriber's `AsyncStream` continuation is resumed
/// from that thread, without a hop through the monitor actor. The actor registers targets and
/// subscribers and reads `current` values.
final class EvaluationHub: @unchecked Sendable {
    private struct Subscriber {
        var targets: Set<ReachabilityTarget>
        /// Status and flags last yielded per target (a subscriber sees only changes of these).
        var last: [ReachabilityTarget: (ReachabilityStatus, ReachabilityFlags)] = [:]
        let continuation: AsyncStream<ReachabilityEvaluation>.Continuation
    }

    private struct State {
        var watched: Set<ReachabilityTarget> = []
        var latest: [ReachabilityTarget: ReachabilityEvaluation] = [:]
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Targets whose evaluations are kept (evaluations of other targets are dropped).
    func watch(_ targets: some Sequence<ReachabilityTarget>) {
        state.withLock { $0.watched.formUnion(targets) }
    }

    /// Stops keeping `targets`; forgets their latest evaluations. Subscribers stay but receive nothing more
    /// for them.
    func unwatch(_ targets: [ReachabilityTarget]) {
        state.withLock { state in
            for target in targets {
                state.watched.remove(target)
                state.latest[target] = nil
            }
        }
    }

    /// The latest evaluation of `target`.
    func current(_ target: ReachabilityTarget) -> ReachabilityEvaluation? {
        state.withLock { $0.latest[target] }
    }

    /// Records evaluations (in order) and yields each to the subscribers of its target whose last yielded
    /// status or flags differ. Called by the watcher thread.
    func publish(_ evaluations: [ReachabilityEvaluation]) {
        state.withLock { state in
            for evaluation in evaluations where state.watched.contains(evaluation.target) {
                state.latest[evaluation.target] = evaluation
                // Mutated in place through `values` (indices stay valid; no copy of the table or a subscriber).
                var index = state.subscribers.values.startIndex
                while index != state.subscribers.values.endIndex {
                    defer { index = state.subscribers.values.index(after: index) }
                    guard state.subscribers.values[index].targets.contains(evaluation.target) else { continue }
                    if let last = state.subscribers.values[index].last[evaluation.target],
                       last.0 == evaluation.status, last.1 == evaluation.flags {
                        continue
                    }
                    state.subscribers.values[index].last[evaluation.target] = (evaluation.status, evaluation.flags)
                    state.subscribers.values[index].continuation.yield(evaluation)
                }
            }
        }
    }

    /// A stream of `targets`' evaluations: the latest of each (`Unknown` if none) at once, then changes.
    func subscribe(_ targets: [ReachabilityTarget]) -> AsyncStream<ReachabilityEvaluation> {
        let (stream, continuation) = AsyncStream<ReachabilityEvaluation>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.nextID += 1
            var subscriber = Subscriber(targets: Set(targets), continuation: continuation)
            var seen = Set<ReachabilityTarget>()
            for target in targets where seen.insert(target).inserted {
                let evaluation = state.latest[target] ?? .unknown(target)
                subscriber.last[target] = (evaluation.status, evaluation.flags)
                continuation.yield(evaluation)
            }
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
        // Not synchronously: the handler can run while this hub's lock is held (a continuation released
        // inside `publish` or `finishAll`), and the lock is not recursive.
        continuation.onTermination = { [weak self] _ in
            Task { self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UInt64) {
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
        _ = removed  // released outside the lock
    }

    /// Finishes every subscriber's stream and forgets the subscribers.
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers
        }
        for subscriber in subscribers.values { subscriber.continuation.finish() }
    }
}
