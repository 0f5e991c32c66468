import NetVigilStore
import XCTest
@testable import NetVigilAgent

/// The 1h / 24h / 7d shares from minute and hour buckets, with buckets allocated at the first result.
final class UptimeCounterTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_795_000_000_000)

    private func minutesAgo(_ minutes: Int64) -> Timestamp {
        Timestamp(milliseconds: now.milliseconds - minutes * 60_000)
    }

    func testNoResultsHaveNoRatio() {
        let counter = UptimeCounter()
        XCTAssertNil(counter.ratio(lastSeconds: 3_600, now: now))
        XCTAssertNil(counter.ratio(lastSeconds: 604_800, now: now))
        XCTAssertEqual(counter, UptimeCounter())
    }

    func testWindowsCountTheirResults() {
        var counter = UptimeCounter()
        counter.add(good: 3, bad: 1, at: minutesAgo(5))
        counter.add(good: 0, bad: 4, at: minutesAgo(3 * 60))
        counter.add(good: 2, bad: 0, at: minutesAgo(3 * 24 * 60))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 0.75)
        XCTAssertEqual(counter.ratio(lastSeconds: 86_400, now: now), 3.0 / 8.0)
        XCTAssertEqual(counter.ratio(lastSeconds: 604_800, now: now), 5.0 / 10.0)
    }

    func testOldBucketsAreReplacedNotAdded() {
        var counter = UptimeCounter()
        counter.add(good: 0, bad: 5, at: minutesAgo(60 * 24 * 8))
        counter.add(good: 1, bad: 0, at: minutesAgo(60 * 24 * 8 - 60 * 168))
        XCTAssertEqual(counter.ratio(lastSeconds: 604_800, now: now), 1.0)
    }

    func testCountsSaturateInsteadOfTrapping() {
        var counter = UptimeCounter()
        counter.add(good: Int.max, bad: 0, at: minutesAgo(1))
        counter.add(good: Int.max, bad: 1, at: minutesAgo(1))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now) ?? 0, 1.0, accuracy: 1e-6)
    }

    // MARK: The rings

    func testAGapLongerThanTheRingClearsEveryOldBucket() {
        var counter = UptimeCounter()
        for minute in stride(from: 200, to: 140, by: -1) { counter.add(good: 0, bad: 1, at: minutesAgo(Int64(minute))) }
        counter.add(good: 1, bad: 0, at: minutesAgo(2))
        // 138 minutes later: no slot of the minute ring still holds one of the old failures.
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 1.0)
        counter.add(good: 0, bad: 1, at: minutesAgo(60 * 24 * 30))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 1.0, "a result older than the ring is dropped")
        counter.add(good: 3, bad: 0, at: Timestamp(milliseconds: now.milliseconds + 60 * 24 * 60 * 60_000))
        XCTAssertNil(counter.ratio(lastSeconds: 604_800, now: now), "a result 60 days ahead moved both rings past now")
    }

    func testAGapOfExactlyOneRingClearsTheSlotItLandsOn() {
        var counter = UptimeCounter()
        counter.add(good: 0, bad: 7, at: minutesAgo(61))
        counter.add(good: 1, bad: 0, at: minutesAgo(1))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 1.0)
        counter.add(good: 0, bad: 1, at: minutesAgo(59))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 0.5)
    }

    func testAnOlderBucketArrivingAfterANewerOneStillCounts() {
        var counter = UptimeCounter()
        // Seeding order is the store's: hour after hour per target, in no particular order.
        counter.add(good: 10, bad: 0, at: minutesAgo(30))
        counter.add(good: 0, bad: 10, at: minutesAgo(50))
        counter.add(good: 5, bad: 5, at: minutesAgo(60 * 100))
        counter.add(good: 0, bad: 5, at: minutesAgo(60 * 30))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 0.5)
        XCTAssertEqual(counter.ratio(lastSeconds: 86_400, now: now), 0.5)
        XCTAssertEqual(counter.ratio(lastSeconds: 604_800, now: now), 15.0 / 35.0)
        // The same results in time order give the same shares.
        var ordered = UptimeCounter()
        ordered.add(good: 5, bad: 5, at: minutesAgo(60 * 100))
        ordered.add(good: 0, bad: 5, at: minutesAgo(60 * 30))
        ordered.add(good: 0, bad: 10, at: minutesAgo(50))
        ordered.add(good: 10, bad: 0, at: minutesAgo(30))
        for window: Int64 in [3_600, 86_400, 604_800] {
            XCTAssertEqual(ordered.ratio(lastSeconds: window, now: now), counter.ratio(lastSeconds: window, now: now))
        }
    }

    func testAnOlderSeedOnTheNewestSlotDoesNotReplaceIt() {
        var counter = UptimeCounter()
        // Whole-hour seeds all fall on minute slot 0; only the current hour's start is within the last hour.
        let hourStart = Timestamp(milliseconds: now.milliseconds / 3_600_000 * 3_600_000)
        counter.add(good: 4, bad: 0, at: hourStart)
        counter.add(good: 0, bad: 4, at: Timestamp(milliseconds: hourStart.milliseconds - 3_600_000))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 1.0)
        XCTAssertEqual(counter.ratio(lastSeconds: 86_400, now: now), 0.5)
    }

    func testResultsAfterNowAreNotInTheWindow() {
        var counter = UptimeCounter()
        counter.add(good: 0, bad: 1, at: minutesAgo(10))
        counter.add(good: 1, bad: 0, at: minutesAgo(-5))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 0.0)
    }

    func testCountsBeyondSixteenBitsAndSaturationOverManyAdds() {
        var counter = UptimeCounter()
        // A 1 s target with 40 addresses stores 144,000 rows an hour.
        counter.add(good: 143_000, bad: 1_000, at: minutesAgo(90))
        XCTAssertEqual(counter.ratio(lastSeconds: 86_400, now: now), 143.0 / 144.0)
        for _ in 0..<3 { counter.add(good: Int(UInt32.max / 2), bad: 0, at: minutesAgo(2)) }
        counter.add(good: 0, bad: Int(UInt32.max), at: minutesAgo(2))
        XCTAssertEqual(counter.ratio(lastSeconds: 3_600, now: now), 0.5, "both counts stop at UInt32.max")
    }

    /// Against a plain sum over every result kept: 3,000 results over 9 days, some out of order, checked as they
    /// come in (windows read from each ring's running sums, which every add and every cleared slot moves) and then
    /// every 13 minutes, so windows start at every slot of both rings and wrap round their ends.
    func testWindowsMatchASumOverTheResultsAtEveryRingPosition() {
        var counter = UptimeCounter()
        var results: [(time: Int64, good: Int, bad: Int)] = []
        var seed: UInt64 = 0x9E37_79B9
        func random(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let start = now.milliseconds - 9 * 86_400_000
        var newest = (minute: Int64.min, hour: Int64.min)
        var checked = 0
        func check(at: Int64) {
            for (seconds, width, span, newestBucket) in [(Int64(3_600), Int64(60_000), Int64(60), newest.minute),
                                                         (86_400, 3_600_000, 168, newest.hour),
                                                         (604_800, 3_600_000, 168, newest.hour)] {
                let first = max((at - seconds * 1_000).floorDiv(width), newestBucket - span + 1)
                let last = min(at.floorDiv(width), newestBucket)
                let kept = results.filter { (first...max(first, last)).contains($0.time.floorDiv(width)) && first <= last }
                let (good, bad) = kept.reduce((0, 0)) { ($0.0 + $1.good, $0.1 + $1.bad) }
                let expected = good + bad == 0 ? nil : Double(good) / Double(good + bad)
                XCTAssertEqual(counter.ratio(lastSeconds: seconds, now: Timestamp(milliseconds: at)), expected,
                               "\(seconds) s window at \(at)")
                checked += 1
            }
        }
        var clock = start
        for added in 0..<3_000 {
            clock += Int64(random(260_000))
            let time = clock - (random(10) == 0 ? Int64(random(7_200_000)) : 0)
            let (good, bad) = (random(3), random(2))
            counter.add(good: good, bad: bad, at: Timestamp(milliseconds: time))
            results.append((time, good, bad))
            newest = (max(newest.minute, time.floorDiv(60_000)), max(newest.hour, time.floorDiv(3_600_000)))
            if added % 5 == 0 { check(at: clock + Int64(random(90_000))) }
        }
        var at = start
        while at <= clock + 3_600_000 {
            check(at: at)
            at += 13 * 60_000
        }
        XCTAssertGreaterThan(checked, 2_500)
    }
}

private extension Int64 {
    /// Division rounded towards minus infinity, as the counter numbers its buckets.
    func floorDiv(_ divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
