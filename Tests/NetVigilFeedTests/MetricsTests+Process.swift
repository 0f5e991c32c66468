import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `netvigil_config_last_reload_*` (Prometheus's own names) and the standard `process_*` metrics.
extension MetricsTests {
    func testReloadOutcomeSeries() throws {
        let started = Date().timeIntervalSince1970
        let metrics = FeedMetrics()
        var e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 1, "the configuration loaded at start counts")
        let first = try XCTUnwrap(e.samples["netvigil_config_last_reload_success_timestamp_seconds"])
        XCTAssertEqual(first, started, accuracy: 5)

        metrics.agent.configReloaded(successful: false, at: Date(timeIntervalSince1970: 2_000_000_000))
        e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 0)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_success_timestamp_seconds"], first, "a refusal keeps the last success")

        metrics.agent.configReloaded(successful: true, at: Date(timeIntervalSince1970: 2_000_000_000))
        e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 1)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_success_timestamp_seconds"], 2_000_000_000)
    }
    // testProcessMetricsDescribeThisProcess (it asks ps) is IntegrationTests' MetricsToolTests.
}
