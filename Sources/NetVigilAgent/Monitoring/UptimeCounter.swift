import NetVigilStore

/// Counts good and bad probe results in time buckets to answer "what share succeeded in the last 1h / 24h / 7d".
///
/// Minute buckets cover the last hour, hour buckets the last 7 days, each kind a ring that knows only its newest
/// bucket's number: a slot holds the bucket `newest - k` for the k slots behind the newest one, and the slots a
/// later result moves past are cleared. Both rings share one array of 456 counts (1.8 KB per target whatever the
/// interval), allocated at the first result, so configured targets that have not run cost nothing here. Skipped
/// results are not counted (an offline machine is not a failing target).
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
        Self.add(good: good, bad: bad, bucket: minute, to: &counts, newest: &newestMinute, ring: Self.minutes)
        Self.add(good: good, bad: bad, bucket: hour, to: &counts, newest: &newestHour, ring: Self.hours)
    }

    private static func add(good: Int, bad: Int, bucket: Int64, to counts: inout [UInt32], newest: inout Int64,
                            ring: Ring) {
        if bucket > newest {
            // The slots between the old newest bucket and this one held buckets that left the ring.
            let cleared = min(bucket - newest, Int64(ring.count))
            for passed in (bucket - cleared + 1)...bucket {
                let index = slot(passed, ring)
                counts[index] = 0
                counts[index + 1] = 0
            }
            newest = bucket
        } else if bucket <= newest - Int64(ring.count) {
            return
        }
        let index = slot(bucket, ring)
        counts[index] = counts[index].addingSaturating(UInt32(clamping: good))
        counts[index + 1] = counts[index + 1].addingSaturating(UInt32(clamping: bad))
    }

    /// The share of good results in the last `seconds` (3600, 86400 or 604800), nil when there were none.
    /// The hour windows use whole hour buckets, so they may reach up to an hour further back.
    func ratio(lastSeconds seconds: Int64, now: Timestamp) -> Double? {
        guard !counts.isEmpty else { return nil }
        let (ring, newest) = seconds <= 3_600 ? (Self.minutes, newestMinute) : (Self.hours, newestHour)
        let last = min(Self.bucket(now, ring), newest)
        let first = max(Self.bucket(Timestamp(milliseconds: now.milliseconds - seconds * 1_000), ring),
                        newest - Int64(ring.count) + 1)
        guard first <= last else { return nil }
        var good = 0
        var bad = 0
        // Walks the ring from `first`'s slot, wrapping at its end: one division for the window instead of one per
        // bucket (up to 168 per window, three windows per target for each `/v1/status`).
        var index = Self.slot(first, ring)
        let end = ring.offset + 2 * ring.count
        for _ in first...last {
            good += Int(counts[index])
            bad += Int(counts[index + 1])
            index += 2
            if index == end { index = ring.offset }
        }
        return good + bad == 0 ? nil : Double(good) / Double(good + bad)
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
