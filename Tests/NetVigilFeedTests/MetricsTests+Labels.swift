import Foundation
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// The `endpoint` label and the configured `labels:` on every probe series of a target.
extension MetricsTests {
    private static let labels = MetricsFixtures.labels

    func testProbeSeriesCarryEndpointAndConfiguredLabels() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", labels: Self.labels, record: Self.okRecord())
        let e = try render(metrics)
        let extra = #"endpoint="https://api.example.test/health",site="fra1",team="payments""#
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api",\#(extra)}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="tls",\#(extra)}"#], 0.0125)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="ok",\#(extra)}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_tls_pin_match{target="api",\#(extra)}"#], 1)
        let probeSeries = e.samples.keys.filter { $0.contains(#"target="api""#) }
        XCTAssertEqual(probeSeries.count, 17)  // 16 + netvigil_probe_http_version
        for series in probeSeries { XCTAssertTrue(series.contains(extra), series) }
        XCTAssertEqual(e.series(named: "netvigil_build_info").count, 1, "agent-wide series carry no target labels")
        // promtool accepts the labelled exposition: IntegrationTests' MetricsToolTests (it runs promtool).
    }

    func testChangedLabelsReplaceTheTargetsSeries() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", labels: Self.labels, record: Self.okRecord())
        metrics.agent.probeFinished(target: "web", labels: [("endpoint", "http://web/")], record: Self.okRecord(target: "web"))
        // A reload moved the target to another site: no series with the old labels are left behind.
        let moved = [Self.labels[0], ("site", "ams1")]
        metrics.agent.probeFinished(target: "api", labels: moved, record: Self.refusedRecord())
        let e = try render(metrics)
        let api = e.samples.keys.filter { $0.contains(#"target="api""#) }
        XCTAssertFalse(api.isEmpty)
        for series in api {
            XCTAssertTrue(series.contains(#"site="ams1""#), series)
            XCTAssertFalse(series.contains("team="), series)
        }
        let extra = #"endpoint="https://api.example.test/health",site="ams1""#
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="failed",\#(extra)}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="ok",\#(extra)}"#], 0, "the counter restarts")
        XCTAssertNil(e.samples[#"netvigil_tls_pin_match{target="api",\#(extra)}"#], "no TLS verdict in the refused probe")
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="web",endpoint="http://web/"}"#], 1, "other targets untouched")

        metrics.agent.targetRemoved("api")
        XCTAssertTrue(try render(metrics).samples.keys.filter { $0.contains(#"target="api""#) }.isEmpty)
    }

    func testServedKeyInfoFollowsTheLeafKey() throws {
        let metrics = FeedMetrics()
        let first = Self.okRecord()
        let firstPin = try XCTUnwrap(first.servedChain.first?.spkiPin)
        metrics.agent.probeFinished(target: "api", labels: [Self.labels[0]], record: first)
        let extra = #"endpoint="https://api.example.test/health""#
        XCTAssertEqual(try render(metrics).samples[#"netvigil_tls_served_key_info{target="api",pin="\#(firstPin)",\#(extra)}"#], 1)

        // The server rotated its key: one series, the new pin.
        var rotated = Self.okRecord(pin: .mismatch)
        rotated.servedChain[0].spkiPin = "sha256/" + String(repeating: "B", count: 43) + "="
        metrics.agent.probeFinished(target: "api", labels: [Self.labels[0]], record: rotated)
        let served = try render(metrics).series(named: "netvigil_tls_served_key_info")
        XCTAssertEqual(served.count, 1, "\(served)")
        XCTAssertTrue(served.keys.first?.contains(rotated.servedChain[0].spkiPin) ?? false, "\(served)")

        // No chain (connection refused): no key seen.
        metrics.agent.probeFinished(target: "api", labels: [Self.labels[0]], record: Self.refusedRecord())
        XCTAssertTrue(try render(metrics).series(named: "netvigil_tls_served_key_info").isEmpty)
    }
}
