import CMalloc
import NetVigilConcurrency
import NetVigilSystem

extension MemoryRelease {
    /// Once the daemon has settled (`delay` after start, when the first round of probes has run), gives back what
    /// start-up alone needed: the heap it freed (`malloc_trim`) and the resident pages of read-only file mappings
    /// and of the executable's constants (``ResidentPages``). Argument parsing, YAML, migrations and one-time
    /// library set-up ran once, and their pages of the binary would otherwise stay in RSS for the life of the
    /// daemon. Code that runs again faults its pages back from the page cache (measured in docs/performance.md).
    public static func afterStartup(delay: Duration) {
        Task {
            try? await Task.sleep(for: delay)
            _ = await BlockingWork.run {
                malloc_trim(0)
                ResidentPages.releaseFileBacked()
                ResidentPages.releaseWritableConstants()
            }
        }
    }
}
