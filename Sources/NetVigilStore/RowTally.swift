import Synchronization

/// Exact row counts of the two tables that grow with every probe and reachability change, kept up to date by this
/// process's writes so `/v1/status` need not scan them (`SELECT COUNT(*)` reads the whole table: slow on a large store).
///
/// The counts are taken once, inside a write transaction, when the daemon's writer starts
/// (`Store.startRowTally()`); every later insert or delete adjusts them inside its own write transaction, so no write
/// is counted twice or missed (the writer runs transactions one at a time). A write that fails after adjusting (its
/// commit did not happen) forgets the counts, and status requests count rows again until the next start. Only this
/// process's writes are seen: the daemon is the store's one writer.
final class RowTally: Sendable {
    struct Counts: Sendable, Equatable {
        var probeResults: Int
        var reachabilityEvents: Int
    }

    enum Table: Sendable {
        case probeResults, reachabilityEvents
    }

    private let counts = Mutex<Counts?>(nil)

    /// The counts, when taken.
    var current: Counts? { counts.withLock { $0 } }

    /// Sets the counts just taken (call inside the write transaction that took them).
    func start(_ taken: Counts) { counts.withLock { $0 = taken } }

    /// Adds `delta` rows of `table` (call inside the write transaction that inserted or deleted them).
    func adjust(_ table: Table, by delta: Int) {
        guard delta != 0 else { return }
        counts.withLock { counts in
            guard counts != nil else { return }
            switch table {
            case .probeResults: counts!.probeResults += delta
            case .reachabilityEvents: counts!.reachabilityEvents += delta
            }
        }
    }

    /// Drops the counts after a write that adjusted them failed: they are taken again when next asked for.
    func forget() { counts.withLock { $0 = nil } }
}
