import NetVigilStore

/// Counts good and bad probe results in time buckets to answer "what share succeeded in the last 1h / 24h / 7d".
///
/// Minute buckets cover the last hour, hour buckets the last 7 days, each kind a ring that knows only its newest
/// bucket's number: a slot holds the bucket `newest - k` for the k slots behind the newest one, and the slots a
/// later result moves past are cleared. Both rings share one array of 456 counts (1.8 KB per target whatever the
/// interval), allocated at the first result, so configured targets that have not run cost nothing here. Skipped
/// results are not counted (an offline machine is not a failing target).
///
/// Each ring also keeps the sum of all its slots. A window that covers most of its ring is that sum less the few
/// buckets before it: the 1 h and 7 d windows of a target probed within the last minute cover their whole ring and
/// are read without walking 60 and 168 buckets (`/v1/status` asks every target for its three windows on every
/// request).
struct UptimeCounter: Sendable, Equatable {
    /// One ring: where its slots start in `counts`, how many there are and how wide a bucket is.
    private struct Ring {
        var offset: Int
        var count: Int
        var milliseconds: Int64
    }

    private static let minutes = Ring(offset: 0, count: 60, milliseconds: 60_000)
    private static let hours = Ring(offset: 120, count: 168, milliseconds: 3_600_000)

    /// Good then bad count of each slot, the minute ring then the hour ring (saturating); empty until the first
    /// result. 32 bits: a 1 s target with many addresses seeds far more than 65,535 rows into one hour.
    private var counts: [UInt32] = []
    /// The number (since the epoch) of each ring's newest bucket.
    private var newestMinute: Int64 = 0
    private var newestHour: Int64 = 0
    /// The good and bad counts of all of each ring's slots.
    private var minuteSums = Sums()
    private var hourSums = Sums()

    private struct Sums: Equatable {
        var good = 0
        var bad = 0
    }

    /// Adds results at `time`. Results may come in any time order: one older than its ring's span is dropped from
    /// that ring only, one newer moves the ring on.
    mutating func add(good: Int, bad: Int, at time: Timestamp) {
        let minute = Self.bucket(time, Self.minutes)
        let hour = Self.bucket(time, Self.hours)
        if counts.isEmpty {
            counts = [UInt32](repeating: 0, count: 2 * (Self.minutes.count + Self.hours.count))
            newestMinute = minute
            newestHour = hour
        }
        Self.add(good: good, bad: bad, bucket: minute, to: &counts, newest: &newestMinute, sums: &minuteSums,
                 ring: Self.minutes)
        Self.add(good: good, bad: bad, bucket: hour, to: &counts, newest: &newestHour, sums: &hourSums, ring: Self.hours)
    }

    private static func add(good: Int, bad: Int, bucket: Int64, to counts: inout [UInt32], newest: inout Int64,
                            sums: inout Sums, ring: Ring) {
        if bucket > newest {
            // The slots between the old newest bucket and this one held buckets that left the ring.
            let cleared = min(bucket - newest, Int64(ring.count))
            for passed in (bucket - cleared + 1)...bucket {
                let index = slot(passed, ring)
                sums.good -= Int(counts[index])
                sums.bad -= Int(counts[index + 1])
                counts[index] = 0
                counts[index + 1] = 0
            }
            newest = bucket
        } else if bucket <= newest - Int64(ring.count) {
            return
        }
        let index = slot(bucket, ring)
        let (oldGood, oldBad) = (counts[index], counts[index + 1])
        counts[index] = oldGood.addingSaturating(UInt32(clamping: good))
        counts[index + 1] = oldBad.addingSaturating(UInt32(clamping: bad))
        sums.good += Int(counts[index] - oldGood)
        sums.bad += Int(counts[index + 1] - oldBad)
    }

    /// The share of good results in the last `seconds` (3600, 86400 or 604800), nil when there were none.
    /// The hour windows use whole hour buckets, so they may reach up to an hour further back.
    func ratio(lastSeconds seconds: Int64, now: Timestamp) -> Double? {
        guard !counts.isEmpty else { return nil }
        let (ring, newest, sums) = seconds <= 3_600 ? (Self.minutes, newestMinute, minuteSums)
                                                    : (Self.hours, newestHour, hourSums)
        let oldest = newest - Int64(ring.count) + 1
        let last = min(Self.bucket(now, ring), newest)
        let first = max(Self.bucket(Timestamp(milliseconds: now.milliseconds - seconds * 1_000), ring), oldest)
        guard first <= last else { return nil }
        let good: Int
        let bad: Int
        if last == newest, first - oldest < last - first + 1 {
            // Most of the ring (all of it for a target probed within the last bucket): the ring's sums less the
            // buckets before the window.
            let before = first > oldest ? sum(oldest...(first - 1), ring) : (good: 0, bad: 0)
            (good, bad) = (sums.good - before.good, sums.bad - before.bad)
        } else {
            (good, bad) = sum(first...last, ring)
        }
        return good + bad == 0 ? nil : Double(good) / Double(good + bad)
    }

    /// The counts of `buckets` (all within `ring`'s span), walking the ring from the first one's slot and wrapping at
    /// its end: one division for the range instead of one per bucket.
    private func sum(_ buckets: ClosedRange<Int64>, _ ring: Ring) -> (good: Int, bad: Int) {
        var good = 0
        var bad = 0
        var index = Self.slot(buckets.lowerBound, ring)
        let end = ring.offset + 2 * ring.count
        for _ in buckets {
            good += Int(counts[index])
            bad += Int(counts[index + 1])
            index += 2
            if index == end { index = ring.offset }
        }
        return (good, bad)
    }

    /// The bucket number of `time` in `ring` (floored, so times before the epoch stay in order).
    private static func bucket(_ time: Timestamp, _ ring: Ring) -> Int64 {
        let (quotient, remainder) = time.milliseconds.quotientAndRemainder(dividingBy: ring.milliseconds)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// The index in `counts` of bucket `bucket`'s good count.
    private static func slot(_ bucket: Int64, _ ring: Ring) -> Int {
        let position = Int(bucket % Int64(ring.count))
        return ring.offset + 2 * (position < 0 ? position + ring.count : position)
    }
}

private extension UInt32 {
    /// `self + other`, or `UInt32.max` on overflow.
    func addingSaturating(_ other: UInt32) -> UInt32 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
