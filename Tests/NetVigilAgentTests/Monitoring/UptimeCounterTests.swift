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
}
