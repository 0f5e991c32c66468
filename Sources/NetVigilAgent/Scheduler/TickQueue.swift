/// A binary min-heap of ticks: the earliest due instant first, and of equal instants the one queued first.
///
/// Entries are never removed from the middle: ``ProbeTimeline`` stamps each one and drops an entry whose stamp no
/// longer matches its target when it reaches the top (lazy deletion), so a reload or a wake costs O(log n).
struct TickQueue {
    struct Entry: Equatable {
        var due: ContinuousClock.Instant
        /// Unique and increasing: orders equal instants first come first served and identifies the entry.
        var stamp: UInt64
        var name: String

        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : stamp < other.stamp
        }
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The earliest entry.
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    /// Keeps only the entries `isValid` accepts (after a reload that dropped many, so stale ones do not pile up).
    mutating func compact(_ isValid: (Entry) -> Bool) {
        let kept = entries.filter(isValid)
        entries = []
        entries.reserveCapacity(kept.count)
        for entry in kept { insert(entry) }
    }
}
