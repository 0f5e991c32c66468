import XCTest
@testable import NetVigilStore

final class TimestampTests: XCTestCase {
    func testFormatsRFC3339UTCWithMilliseconds() {
        XCTAssertEqual(Timestamp(milliseconds: 0).rfc3339, "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp(milliseconds: 1_795_000_000_123).rfc3339, "2026-11-18T11:06:40.123Z")
        XCTAssertEqual(Timestamp(milliseconds: 951_782_400_000).rfc3339, "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(Timestamp(milliseconds: -1).rfc3339, "1969-12-31T23:59:59.999Z")
    }

    func testFormattingMatchesFoundationOverManyDates() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var ms: Int64 = 0
        for _ in 0..<2_000 {
            ms = (ms &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407) & 0x3FFF_FFFF_FFFF
            let ts = Timestamp(milliseconds: ms % 4_102_444_800_000)
            XCTAssertEqual(ts.rfc3339, formatter.string(from: ts.date))
            XCTAssertEqual(Timestamp.parse(ts.rfc3339), ts)
        }
    }

    func testParsesRFC3339VariantsAndRelativeTimes() {
        XCTAssertEqual(Timestamp.parse("2026-11-18T11:06:40Z")?.milliseconds, 1_795_000_000_000)
        XCTAssertEqual(Timestamp.parse("2026-11-18T12:06:40.5+01:00")?.milliseconds, 1_795_000_000_500)
        XCTAssertEqual(Timestamp.parse("2026-11-18")?.milliseconds, 1_794_960_000_000)
        let now = Timestamp(milliseconds: 1_000_000_000)
        XCTAssertEqual(Timestamp.parse("-24h", now: now)?.milliseconds, 1_000_000_000 - 86_400_000)
        XCTAssertEqual(Timestamp.parse("-1h30m", now: now)?.milliseconds, 1_000_000_000 - 5_400_000)
        XCTAssertEqual(Timestamp.parse("now", now: now), now)
        for bad in ["yesterday", "2026-13-01", "2026-11-18T25:00:00Z", "2026-11-18T10:00:00", "-24x", "-", ""] {
            XCTAssertNil(Timestamp.parse(bad), bad)
        }
    }
}
