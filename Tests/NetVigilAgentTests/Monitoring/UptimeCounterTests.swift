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
}
