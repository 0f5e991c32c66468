import NetVigilAgent
import NetVigilStore
import XCTest
@testable import NetVigilFeed

/// The per-address series of `addresses: all` targets: an `address` label beside `target`, the per-target series
/// untouched, and series of addresses that left the tick removed.
final class AddressMetricsTests: XCTestCase {
    private func render(_ metrics: FeedMetrics) throws -> MetricsTests.Exposition {
        try MetricsTests.Exposition(String(decoding: metrics.exposition().text, as: UTF8.self))
    }

    func testEachAddressHasItsSeriesAndStaleOnesGo() throws {
        let metrics = FeedMetrics()
        var rogue = MetricsTests.okRecord(target: "edge", pin: .mismatch)
        rogue.outcome = .failed
        rogue.trustVerdict = .untrusted(reason: "publicKeyPinMismatch")
        rogue.resolvedAddress = "127.0.0.2"
        let good = MetricsTests.okRecord(target: "edge")
        metrics.agent.probeFinished(target: "edge", record: rogue)
        metrics.agent.addressProbesFinished(target: "edge", records: [good, rogue])
        var e = try render(metrics)
        XCTAssertEqual(e.series(named: "netvigil_address_probe_success"), [
            #"netvigil_address_probe_success{target="edge",address="127.0.0.1"}"#: 1,
            #"netvigil_address_probe_success{target="edge",address="127.0.0.2"}"#: 0,
        ])
        XCTAssertEqual(e.samples[#"netvigil_address_tls_pin_match{target="edge",address="127.0.0.2"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_address_tls_trusted{target="edge",address="127.0.0.1"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="edge"}"#], 0, "the per-target series is the whole target")

        metrics.agent.addressProbesFinished(target: "edge", records: [good])
        e = try render(metrics)
        XCTAssertEqual(Array(e.series(named: "netvigil_address_probe_success").keys),
                       [#"netvigil_address_probe_success{target="edge",address="127.0.0.1"}"#])
        metrics.agent.targetRemoved("edge")
        e = try render(metrics)
        XCTAssertTrue(e.series(named: "netvigil_address_probe_success").isEmpty)
    }
}
