import Synchronization

/// Lets one sleeping target loop be woken early: by a reachability recovery ("probe at once") or by a stop.
///
/// A wake that arrives while nobody sleeps is remembered and ends the next sleep at once.
final class Waker: Sendable {
    private enum State {
        case idle
        case sleeping(id: Int, CheckedContinuation<Void, Never>)
        case woken
    }

    private struct Box {
        var state = State.idle
        var nextID = 0
    }

    private let box = Mutex(Box())

    /// Wakes the sleeper (or the next one).
    func wake() {
        let continuation = box.withLock { box -> CheckedContinuation<Void, Never>? in
            switch box.state {
            case .sleeping(_, let continuation):
                box.state = .idle
                return continuation
            case .idle, .woken:
                box.state = .woken
                return nil
            }
        }
        continuation?.resume()
    }

    /// Sleeps until `deadline`, a wake, or cancellation. Returns true when woken.
    func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        let alreadyWoken = box.withLock { box -> Bool in
            if case .woken = box.state {
                box.state = .idle
                return true
            }
            return false
        }
        if alreadyWoken { return true }
        if deadline <= .now { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            group.addTask { await self.waitForWake() }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Suspends until `wake()` or cancellation; true when woken.
    private func waitForWake() async -> Bool {
        let id = box.withLock { box -> Int in
            defer { box.nextID += 1 }
            return box.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = box.withLock { box -> Bool in
                    if Task.isCancelled { return true }
                    if case .woken = box.state {
                        box.state = .idle
                        return true
                    }
                    box.state = .sleeping(id: id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = box.withLock { box -> CheckedContinuation<Void, Never>? in
                guard case .sleeping(let sleeper, let continuation) = box.state, sleeper == id else { return nil }
                box.state = .idle
                return continuation
            }
            continuation?.resume()
        }
        return !Task.isCancelled
    }
}
