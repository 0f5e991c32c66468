import NetVigilStore

/// Counts good and bad probe results in time buckets to answer "what share succeeded in the last 1h / 24h / 7d".
///
/// Minute buckets cover the last hour, hour buckets the last 7 days: 228 buckets of 12 bytes per target whatever
/// the interval, allocated at the first result, so configured targets that have not run cost nothing here (at
/// 10,000 targets the former eagerly filled 24-byte buckets were 50 MB of the daemon's start-up heap). Skipped
/// results are not counted (an offline machine is not a failing target).
struct UptimeCounter: Sendable, Equatable {
    /// A minute or hour number since the epoch (fits 32 bits until year 6053) and its counts (saturating).
    private struct Bucket: Sendable, Equatable {
        var index: Int32 = -1
        var good: UInt32 = 0
        var bad: UInt32 = 0
    }

    private static let minuteCount = 60
    private static let hourCount = 168

    /// Empty until the first result.
    private var minutes: [Bucket] = []
    private var hours: [Bucket] = []

    /// Adds results at `time`.
    mutating func add(good: Int, bad: Int, at time: Timestamp) {
        if minutes.isEmpty {
            minutes = [Bucket](repeating: Bucket(), count: Self.minuteCount)
            hours = [Bucket](repeating: Bucket(), count: Self.hourCount)
        }
        let minute = time.milliseconds / 60_000
        let hour = time.milliseconds / 3_600_000
        Self.add(&minutes, index: minute, good: good, bad: bad)
        Self.add(&hours, index: hour, good: good, bad: bad)
    }

    private static func add(_ buckets: inout [Bucket], index: Int64, good: Int, bad: Int) {
        let slot = Int(index % Int64(buckets.count))
        let index = Int32(clamping: index)
        if buckets[slot].index != index { buckets[slot] = Bucket(index: index) }
        buckets[slot].good = buckets[slot].good.addingSaturating(UInt32(clamping: good))
        buckets[slot].bad = buckets[slot].bad.addingSaturating(UInt32(clamping: bad))
    }

    /// The share of good results in the last `seconds` (3600, 86400 or 604800), nil when there were none.
    /// The hour windows use whole hour buckets, so they may reach up to an hour further back.
    func ratio(lastSeconds seconds: Int64, now: Timestamp) -> Double? {
        let (buckets, width): ([Bucket], Int64) = seconds <= 3_600 ? (minutes, 60_000) : (hours, 3_600_000)
        let newest = now.milliseconds / width
        let oldest = (now.milliseconds - seconds * 1_000) / width
        var good = 0
        var bad = 0
        for bucket in buckets where Int64(bucket.index) >= oldest && Int64(bucket.index) <= newest {
            good += Int(bucket.good)
            bad += Int(bucket.bad)
        }
        return good + bad == 0 ? nil : Double(good) / Double(good + bad)
    }
}

private extension UInt32 {
    /// `self + other`, or `UInt32.max` on overflow.
    func addingSaturating(_ other: UInt32) -> UInt32 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
