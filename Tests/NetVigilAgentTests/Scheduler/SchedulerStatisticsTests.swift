import XCTest
@testable import NetVigilAgent

/// Lateness quantiles over all kept samples and over the newest `window` of them, before and after the ring wraps.
final class SchedulerStatisticsTests: XCTestCase {
    func testQuantilesOverTheNewestWindow() throws {
        let statistics = SchedulerStatistics(capacity: 10)
        XCTAssertNil(statistics.lateness(quantiles: [0.5]))
        for value in 1...6 { statistics.probeStarted(latenessSeconds: Double(value)) }
        XCTAssertEqual(statistics.lateness(quantiles: [0.5, 1]), [3, 6])
        XCTAssertEqual(statistics.lateness(quantiles: [0, 1], window: 3), [4, 6])
        // Wrapped: the ring holds 5...14, the newest three are 12, 13, 14.
        for value in 7...14 { statistics.probeStarted(latenessSeconds: Double(value)) }
        XCTAssertEqual(statistics.lateness(quantiles: [0, 1]), [5, 14])
        XCTAssertEqual(statistics.lateness(quantiles: [0, 0.5, 1], window: 3), [12, 13, 14])
        XCTAssertEqual(statistics.lateness(quantile: 1), 14)
        XCTAssertEqual(statistics.probesStarted, 14)
    }
}
