import CMalloc
import GRDB
import NetVigilConcurrency

extension Store {
    /// Gives back what SQLite's page caches hold: the writer's cache (up to `writerCacheKiB`) keeps every page a
    /// write touched, and the database grows by new pages all the time, so an idle daemon's heap would grow with it.
    /// Frees the writer's cache, closes the idle reader connections (a read opens one again) and returns the freed
    /// heap to the system (`malloc_trim`).
    ///
    /// Waits for running reads to end: call it when no export is reading (`exportsInProgress == 0`).
    public func releaseMemory() async {
        await BlockingWork.run { [pool] in
            pool.releaseMemory()
            _ = malloc_trim(0)
        }
    }
}
