import Synchronization

/// The one wake-up primitive of netvigil's async loops: `wait()` suspends until `wake()`.
///
/// A wake that comes while nobody waits is kept and ends the next wait at once, so the loop "check the shared state,
/// then wait" never misses a change made between the check and the wait. `wake()` resumes every current waiter.
/// Cancelling a waiting task ends its wait. Wakes never run code under the lock: waiters are resumed after it.
public final class Waker: Sendable {
    private struct State {
        var pending = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes every waiter, or the next `wait()` when none waits.
    public func wake() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.waiters.isEmpty else {
                state.pending = true
                return []
            }
            defer { state.waiters.removeAll(keepingCapacity: true) }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Suspends until `wake()` (true) or until the task is cancelled (false).
    @discardableResult
    public func wait() async -> Bool {
        let id = state.withLock { state -> Int in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeWith = state.withLock { state -> Bool? in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resumeWith { continuation.resume(returning: resumeWith) }
            }
        } onCancel: {
            // Runs with the task's status lock held: take only our own lock, resume outside it.
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    /// Suspends until `deadline` (false), a wake (true) or cancellation (false).
    public func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        let pending = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if pending { return true }
        if deadline <= .now { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            group.addTask { await self.wait() }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
