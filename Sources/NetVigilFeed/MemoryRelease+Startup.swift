#if canImport(Glibc)
import Glibc
#endif
import CMalloc
import NetVigilConcurrency
import NetVigilSystem
import Synchronization

extension MemoryRelease {
    /// Once the daemon has settled (`delay` after start, when the first round of probes has run), gives back what
    /// start-up alone needed: the heap it freed (`malloc_trim`) and the resident pages of read-only file mappings
    /// and of the executable's constants (``ResidentPages``), and the executable's page cache, so that what runs
    /// later comes back a page at a time rather than a large folio at a time. Argument parsing, YAML, migrations and
    /// one-time library set-up ran once, and their pages of the binary would otherwise stay in RSS for the life of the
    /// daemon. Code that runs again faults its pages back from the page cache (measured in docs/performance.md).
    public static func afterStartup(delay: Duration) {
        Task {
            try? await Task.sleep(for: delay)
            _ = await BlockingWork.run {
                malloc_trim(0)
                dropResidentPages()
            }
            settled.store(true, ordering: .releasing)
        }
    }

    /// After occasional work that runs code the probe cycle does not (a retention pass, its checkpoint and cache
    /// release; a configuration reload), drops the binary's resident pages again, as `afterStartup` did: otherwise
    /// every path that ran once in a while stays resident, and RSS creeps up over hours (+1.3 MB of file pages in an
    /// hour, measured in docs/performance.md). The probe cycle faults its own pages back from the page cache within a
    /// round. Does nothing until `afterStartup` has run, so start-up's first retention pass does not fault start-up's
    /// code twice.
    public static func afterOccasionalWork() async {
        guard settled.load(ordering: .acquiring) else { return }
        _ = await BlockingWork.run { dropResidentPages() }
    }

    /// Before occasional work that runs much code the probe cycle does not (a configuration reload): turns
    /// read-ahead back on for the executable, whose page cache the drops evicted, so that code comes in from disk in
    /// large reads rather than a page per fault (a reload of 10,000 targets, docs/performance.md). Follow it with
    /// ``afterOccasionalWork()``, which drops those pages again and turns read-ahead off.
    public static func beforeOccasionalWork() async {
        guard settled.load(ordering: .acquiring) else { return }
        _ = await BlockingWork.run { ResidentPages.adviseExecutable(readAhead: true) }
    }

    /// Whether `afterStartup` has dropped start-up's pages.
    private static let settled = Atomic<Bool>(false)

    private static func dropResidentPages() {
        ResidentPages.releaseFileBacked()
        ResidentPages.releaseWritableConstants()
        // NETVIGIL_KEEP_PAGE_CACHE=1 keeps the executable's page cache (side-by-side measurements, docs/performance.md).
        if getenv("NETVIGIL_KEEP_PAGE_CACHE") == nil { ResidentPages.evictExecutablePageCache() }
    }
}
