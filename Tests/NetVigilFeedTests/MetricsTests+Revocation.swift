import Foundation
import NetVigilProbeModel
import NetVigilStore
import XCTest
@testable import NetVigilFeed

extension MetricsTests {
    func testProxyAndRevocationPhaseSeriesExistOnlyAfterProbesThatHadThem() throws {
        let metrics = FeedMetrics()
        var proxied = Self.okRecord(target: "proxied")
        proxied.timings.proxy = 3.5
        proxied.timings.revocation = 250
        metrics.agent.probeFinished(target: "proxied", record: proxied)
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        var exposition = try render(metrics)
        let proxy = #"netvigil_probe_duration_seconds{target="proxied",phase="proxy"}"#
        let revocation = #"netvigil_probe_duration_seconds{target="proxied",phase="revocation"}"#
        XCTAssertEqual(try XCTUnwrap(exposition.samples[proxy]), 0.0035, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(exposition.samples[revocation]), 0.25, accuracy: 1e-12)
        XCTAssertNil(exposition.samples[#"netvigil_probe_duration_seconds{target="api",phase="proxy"}"#])
        XCTAssertNil(exposition.samples[#"netvigil_probe_duration_seconds{target="api",phase="revocation"}"#])

        // The next probe found everything in the caches: no download, no revocation series.
        proxied.timings.revocation = nil
        metrics.agent.probeFinished(target: "proxied", record: proxied)
        exposition = try render(metrics)
        XCTAssertNil(exposition.samples[revocation])
        XCTAssertNotNil(exposition.samples[proxy])
    }
}
