import NetVigilAgent
import XCTest
@testable import NetVigilFeed

/// `netvigil_scheduler_start_lateness_seconds` and `netvigil_scheduler_skipped_ticks_total`.
extension MetricsTests {
    func testSchedulerPunctualitySeries() throws {
        let metrics = FeedMetrics()
        // A followed scheduler that has not started a probe: no lateness yet, no skipped tick.
        metrics.agent.follow(scheduler: SchedulerStatistics())
        var e = try Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))
        XCTAssertEqual(e.samples["netvigil_scheduler_skipped_ticks_total"], 0)
        XCTAssertTrue(e.series(named: "netvigil_scheduler_start_lateness_seconds").isEmpty)

        metrics.agent.schedulerPunctuality(skippedTicks: 3, lateness: [(0.5, 0.0002), (0.99, 0.004), (1, 0.03)])
        e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_scheduler_skipped_ticks_total"], 3)
        XCTAssertEqual(e.series(named: "netvigil_scheduler_start_lateness_seconds"), [
            #"netvigil_scheduler_start_lateness_seconds{percentile="50"}"#: 0.0002,
            #"netvigil_scheduler_start_lateness_seconds{percentile="99"}"#: 0.004,
            #"netvigil_scheduler_start_lateness_seconds{percentile="100"}"#: 0.03,
        ])
    }
}
