import CMalloc
import NetVigilConcurrency
import Synchronization

/// Gives freed heap memory back to the system after a burst of feed clients has gone or a configuration reload.
///
/// glibc keeps freed memory in its per-thread arenas; after hundreds of SSE clients leave, or a reload parsed 10,000
/// targets next to the running ones, the daemon's RSS would stay where the burst left it (measured for the reload in
/// docs/performance.md). `malloc_trim(0)` returns the free pages. Trailing debounce: a trim runs `delay`
/// after the first request, once, however many requests came meanwhile (a burst closes many connections).
public enum MemoryRelease {
    private static let scheduled = Atomic<Bool>(false)
    static let delay: Duration = .seconds(1)

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
