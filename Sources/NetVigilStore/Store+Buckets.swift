import GRDB

extension Store {
    /// A window of equal time buckets: `count` buckets of `width` milliseconds from `start` (aligned to the epoch).
    public struct BucketWindow: Sendable, Equatable {
        public var start: Timestamp
        public var widthMilliseconds: Int64
        public var count: Int

        /// The `count` buckets of `widthMilliseconds` ending with the one that holds `now`.
        public init(endingAt now: Timestamp, widthMilliseconds: Int64, count: Int) {
            precondition(widthMilliseconds > 0 && count > 0, "a bucket window needs a positive width and count")
            let current = now.milliseconds - ((now.milliseconds % widthMilliseconds) + widthMilliseconds) % widthMilliseconds
            self.start = Timestamp(milliseconds: current - Int64(count - 1) * widthMilliseconds)
            self.widthMilliseconds = widthMilliseconds
            self.count = count
        }

        /// First millisecond after the last bucket.
        public var end: Timestamp { Timestamp(milliseconds: start.milliseconds + Int64(count) * widthMilliseconds) }

        /// Start of bucket `index`.
        public func start(of index: Int) -> Timestamp {
            Timestamp(milliseconds: start.milliseconds + Int64(index) * widthMilliseconds)
        }
    }

    /// Probe outcomes of one target in one bucket.
    public struct OutcomeBucket: Sendable, Equatable {
        public var start: Timestamp
        public var ok: Int
        public var failed: Int
        public var skipped: Int
        /// Average total time of the bucket's successful probes in milliseconds (the overview's sparkline).
        public var averageTotalMilliseconds: Double?

        public init(start: Timestamp, ok: Int = 0, failed: Int = 0, skipped: Int = 0, averageTotalMilliseconds: Double? = nil) {
            self.start = start
            self.ok = ok
            self.failed = failed
            self.skipped = skipped
            self.averageTotalMilliseconds = averageTotalMilliseconds
        }

        /// `failed` when any probe failed, else `skipped` when any was skipped, else `ok`; nil for an empty bucket.
        public var worst: ProbeOutcome? {
            failed > 0 ? .failed : skipped > 0 ? .skipped : ok > 0 ? .ok : nil
        }
    }

    /// Outcome counts of `target` per bucket of `window`, every bucket present (empty ones with zero counts).
    ///
    /// One grouped query over the `(target, time_ms)` index: the browser gets counts, never raw rows. (`ok` is the
    /// count less the others: one comparison fewer per row, measurable at a million rows.)
    public func outcomeBuckets(target: String, window: BucketWindow) async throws -> [OutcomeBucket] {
        try await outcomeBuckets(targets: [target], window: window)[target] ?? Self.emptyBuckets(window)
    }

    /// Outcome counts per bucket of every target in `targets` (all targets with results when nil), in one query
    /// over the time index.
    public func outcomeBuckets(targets: Set<String>?, window: BucketWindow) async throws -> [String: [OutcomeBucket]] {
        let single = targets.flatMap { $0.count == 1 ? $0.first : nil }
        let sql = """
            SELECT target, (time_ms - ?) / ? AS bucket,
                   COUNT(*) AS count, SUM(outcome = 'failed') AS failed, SUM(outcome = 'skipped') AS skipped,
                   AVG(total_ms) FILTER (WHERE outcome = 'ok') AS total
            FROM probe_results
            WHERE \(single == nil ? "" : "target = ? AND ")time_ms >= ? AND time_ms < ?
            GROUP BY target, bucket
            """
        let (from, width, end) = (window.start.milliseconds, window.widthMilliseconds, window.end.milliseconds)
        let arguments: StatementArguments = single.map { [from, width, $0, from, end] } ?? [from, width, from, end]
        do {
            return try await pool.read { db in
                var result: [String: [OutcomeBucket]] = [:]
                for name in targets ?? [] { result[name] = Self.emptyBuckets(window) }
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try cursor.next() {
                    let name: String = row["target"]
                    if let targets, !targets.contains(name) { continue }
                    let index: Int = row["bucket"]
                    guard index >= 0 && index < window.count else { continue }
                    if result[name] == nil { result[name] = Self.emptyBuckets(window) }
                    let (count, failed, skipped): (Int, Int, Int) = (row["count"], row["failed"], row["skipped"])
                    result[name]![index] = OutcomeBucket(start: window.start(of: index), ok: count - failed - skipped, failed: failed,
                                                         skipped: skipped, averageTotalMilliseconds: row["total"])
                }
                return result
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }

    static func emptyBuckets(_ window: BucketWindow) -> [OutcomeBucket] {
        (0..<window.count).map { OutcomeBucket(start: window.start(of: $0)) }
    }
}
