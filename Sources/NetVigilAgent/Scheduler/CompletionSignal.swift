import Synchronization

/// A one-shot signal: `wait()` returns once `complete()` has been called (immediately if it already was).
final class CompletionSignal: Sendable {
    private struct State {
        var completed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func complete() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.completed = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.completed { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
