/// The store writer's queue of accepted batches: a pure value the writer keeps under its lock.
///
/// Bounded: beyond `maxRows` queued rows (only reached while the store cannot be written), the oldest probe and
/// reachability rows are dropped and counted. Alert rows are never dropped, nor rows whose producer waits for the
/// commit (`done`), so the alert outbox loses nothing.
struct WriteQueue {
    typealias Done = CheckedContinuation<Void, Error>

    struct Item {
        var batch: WriteBatch
        var done: Done?
        var onCommit: (@Sendable () -> Void)?
    }

    private(set) var items: [Item] = []
    /// Rows in `items`.
    private(set) var rows = 0
    /// Rows dropped because of the bound, since the writer started.
    private(set) var droppedRows = 0
    let maxRows: Int

    init(maxRows: Int) {
        self.maxRows = max(1, maxRows)
    }

    var isEmpty: Bool { items.isEmpty }

    /// Queues an item, then drops the oldest droppable rows while over the bound. Returns the rows dropped.
    @discardableResult
    mutating func append(_ item: Item) -> Int {
        items.append(item)
        rows += item.batch.count
        return trim()
    }

    /// Puts items taken for a transaction that failed back in front (they keep their place), then trims.
    @discardableResult
    mutating func putBack(_ taken: [Item]) -> Int {
        items.insert(contentsOf: taken, at: 0)
        rows += taken.reduce(0) { $0 + $1.batch.count }
        return trim()
    }

    /// Takes items from the front for one transaction of at most `maxRows` rows (at least one item).
    mutating func take(maxRows limit: Int) -> [Item] {
        var total = 0
        var count = 0
        for item in items {
            if count > 0 && total + item.batch.count > limit { break }
            total += item.batch.count
            count += 1
        }
        let taken = Array(items.prefix(count))
        items.removeFirst(count)
        rows -= total
        return taken
    }

    /// Queued alert rows (not yet committed), oldest first.
    var alerts: [AlertRecord] { items.flatMap(\.batch.alerts) }

    /// Applies `change` to the queued alert with this idempotency key; false when it is not queued (committed
    /// meanwhile, or never queued).
    mutating func updateAlert(idempotencyKey: String, _ change: (inout AlertRecord) -> Void) -> Bool {
        for index in items.indices {
            if let row = items[index].batch.alerts.firstIndex(where: { $0.idempotencyKey == idempotencyKey }) {
                change(&items[index].batch.alerts[row])
                return true
            }
        }
        return false
    }

    /// Drops probe and reachability rows from the oldest items until the queue fits.
    private mutating func trim() -> Int {
        var dropped = 0
        var index = 0
        while rows > maxRows, index < items.count {
            if items[index].done == nil {
                let batch = items[index].batch
                let count = batch.probes.count + batch.reachabilityEvents.count
                if count > 0 {
                    items[index].batch = WriteBatch(alerts: batch.alerts)
                    rows -= count
                    dropped += count
                }
                if items[index].batch.isEmpty, items[index].onCommit == nil {
                    items.remove(at: index)
                    continue
                }
            }
            index += 1
        }
        droppedRows += dropped
        return dropped
    }
}
