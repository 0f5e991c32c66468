import CMalloc
import Synchronization

/// Gives freed heap memory back to the system after a burst of feed clients has gone.
///
/// glibc keeps freed memory in its per-thread arenas; after hundreds of SSE clients leave, the daemon's RSS would
/// stay where the burst left it. `malloc_trim(0)` returns the free pages. Debounced: at most once per `interval`.
enum MemoryRelease {
    private static let last = Mutex<ContinuousClock.Instant?>(nil)
    static let interval: Duration = .seconds(5)

    /// Trims now unless a trim ran within `interval`.
    static func trim(now: ContinuousClock.Instant = .now) {
        let due = last.withLock { last -> Bool in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
        guard due else { return }
        _ = malloc_trim(0)
    }
}
