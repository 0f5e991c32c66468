import Foundation
import NetVigilProbeModel
import NetVigilStore
import XCTest
@testable import NetVigilFeed

extension MetricsTests {
    func testSTARTTLSPhaseSeriesExistsOnlyForSTARTTLSTargets() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "mx", record: ProbeRecord(
            time: Timestamp(milliseconds: 1_000), target: "mx", url: "smtp://mail.test", outcome: .ok,
            timings: PhaseTimings(resolve: 0.5, connect: 1, tls: 4, processing: 2, total: 12, starttls: 4.5)))
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        let exposition = try render(metrics)
        XCTAssertEqual(try XCTUnwrap(exposition.samples[#"netvigil_probe_duration_seconds{target="mx",phase="starttls"}"#]), 0.0045, accuracy: 1e-12)
        XCTAssertNil(exposition.samples[#"netvigil_probe_duration_seconds{target="api",phase="starttls"}"#])
    }
}
