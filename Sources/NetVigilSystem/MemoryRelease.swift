import CMalloc
import NetVigilConcurrency
import Synchronization

/// Gives freed heap memory back to the system after a burst: start-up, feed clients that have gone, a configuration
/// reload, a retention pass.
///
/// glibc keeps freed memory in its per-thread arenas; after hundreds of SSE clients leave, or a reload parsed 10,000
/// targets next to the running ones, the daemon's RSS would stay where the burst left it. `malloc_trim(0)` returns
/// the free pages. Trailing debounce: a trim runs `delay`
/// after the first request, once, however many requests came meanwhile (a burst closes many connections).
public enum MemoryRelease {
    private static let scheduled = Atomic<Bool>(false)
    static let delay: Duration = .seconds(1)

    /// Once the daemon has settled (`delay` after start, when the first round of probes has run), gives back the heap
    /// that start-up alone needed (argument parsing, YAML, migrations).
    public static func afterStartup(delay: Duration) {
        Task {
            try? await Task.sleep(for: delay)
            _ = await BlockingWork.run { malloc_trim(0) }
        }
    }

    /// Trims `delay` from now unless a trim is already scheduled.
    public static func trimSoon() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        Task {
            try? await Task.sleep(for: delay)
            scheduled.store(false, ordering: .releasing)
            // Trimming a large heap takes milliseconds: not on an event loop.
            _ = await BlockingWork.run { malloc_trim(0) }
        }
    }
}
