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
        /// The deadline task of each `sleep(until:)` waiter, cancelled when the waiter is resumed otherwise.
        var timers: [Int: Task<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes every waiter, or the next `wait()` when none waits.
    public func wake() {
        let (waiters, timers) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], [Task<Void, Never>]) in
            guard !state.waiters.isEmpty else {
                state.pending = true
                return ([], [])
            }
            defer {
                state.waiters.removeAll(keepingCapacity: true)
                state.timers.removeAll(keepingCapacity: true)
            }
            return (Array(state.waiters.values), Array(state.timers.values))
        }
        for timer in timers { timer.cancel() }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Suspends until `wake()` (true) or until the task is cancelled (false).
    @discardableResult
    public func wait() async -> Bool {
        await suspend(until: nil)
    }

    /// Suspends until `deadline` (false), a wake (true) or cancellation (false).
    ///
    /// One deadline task sleeps beside the waiter (and is cancelled when a wake comes first): no task group, so a
    /// loop that sleeps often pays one small task per sleep.
    public func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        let pending = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if pending { return true }
        if deadline <= .now { return false }
        return await suspend(until: deadline)
    }

    /// Waits as a waiter of `wake()`, with a deadline task when `deadline` is given.
    private func suspend(until deadline: ContinuousClock.Instant?) async -> Bool {
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
                if let resumeWith {
                    continuation.resume(returning: resumeWith)
                    return
                }
                guard let deadline else { return }
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    self.resume(id, with: false)
                }
                // The waiter may already be gone (woken or cancelled) by now: then the timer has nothing to do.
                let kept = state.withLock { state -> Bool in
                    guard state.waiters[id] != nil else { return false }
                    state.timers[id] = timer
                    return true
                }
                if !kept { timer.cancel() }
            }
        } onCancel: {
            // Runs with the task's status lock held: take only our own lock, resume outside it.
            resume(id, with: false)
        }
    }

    /// Resumes one waiter (its deadline or its cancellation) and cancels its deadline task.
    private func resume(_ id: Int, with value: Bool) {
        let (waiter, timer) = state.withLock { state in
            (state.waiters.removeValue(forKey: id), state.timers.removeValue(forKey: id))
        }
        timer?.cancel()
        waiter?.resume(returning: value)
    }
}
