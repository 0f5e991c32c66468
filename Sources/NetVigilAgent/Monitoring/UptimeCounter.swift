import NetVigilStore

/// Counts good and bad probe results in time buckets to answer "what share succeeded in the last 1h / 24h / 7d".
///
/// Minute buckets cover the last hour, hour buckets the last 7 days: 228 small buckets per target whatever the
/// interval. Skipped results are not counted (an offline machine is not a failing target).
struct UptimeCounter: Sendable, Equatable {
    private struct Bucket: Sendable, Equatable {
        var index: Int64 = -1
        var good = 0
        var bad = 0
    }

    private var minutes = [Bucket](repeating: Bucket(), count: 60)
    private var hours = [Bucket](repeating: Bucket(), count: 168)

    /// Adds results at `time`.
    mutating func add(good: Int, bad: Int, at time: Timestamp) {
        let minute = time.milliseconds / 60_000
        let hour = time.milliseconds / 3_600_000
        Self.add(&minutes, index: minute, good: good, bad: bad)
        Self.add(&hours, index: hour, good: good, bad: bad)
    }

    private static func add(_ buckets: inout [Bucket], index: Int64, good: Int, bad: Int) {
        let slot = Int(index % Int64(buckets.count))
        if buckets[slot].index != index { buckets[slot] = Bucket(index: index) }
        buckets[slot].good += good
        buckets[slot].bad += bad
    }

    /// The share of good results in the last `seconds` (3600, 86400 or 604800), nil when there were none.
    /// The hour windows use whole hour buckets, so they may reach up to an hour further back.
    func ratio(lastSeconds seconds: Int64, now: Timestamp) -> Double? {
        let (buckets, width): ([Bucket], Int64) = seconds <= 3_600 ? (minutes, 60_000) : (hours, 3_600_000)
        let newest = now.milliseconds / width
        let oldest = (now.milliseconds - seconds * 1_000) / width
        var good = 0
        var bad = 0
        for bucket in buckets where bucket.index >= oldest && bucket.index <= newest {
            good += bucket.good
            bad += bucket.bad
        }
        return good + bad == 0 ? nil : Double(good) / Double(good + bad)
    }
}
