import XCTest
import NetVigilConcurrency

/// `Duration` in seconds, milliseconds and nanoseconds: fractions kept, whole units truncated, extremes saturated.
final class DurationUnitsTests: XCTestCase {
    func testSecondsKeepTheFraction() {
        XCTAssertEqual(Duration.milliseconds(1_500).inSeconds, 1.5)
        XCTAssertEqual(Duration.microseconds(250).inSeconds, 0.000_25, accuracy: 1e-12)
        XCTAssertEqual(Duration.seconds(-2).inSeconds, -2)
    }

    func testWholeUnitsTruncate() {
        XCTAssertEqual(Duration.microseconds(1_999).inMilliseconds, 1)
        XCTAssertEqual(Duration.seconds(90).inMilliseconds, 90_000)
        XCTAssertEqual(Duration.nanoseconds(1_234_567_891).inNanoseconds, 1_234_567_891)
        XCTAssertEqual(Duration.seconds(3).inNanoseconds, 3_000_000_000)
    }

    func testNanosecondsSaturate() {
        XCTAssertEqual(Duration.seconds(Int64.max / 10).inNanoseconds, .max)
        XCTAssertEqual(Duration.seconds(Int64.min / 10).inNanoseconds, .min)
    }
}
