import NetVigilAgent
import NetVigilStore
import XCTest
@testable import NetVigilFeed

/// The per-address series of a `source: { interfaces: }` target: an `interface` label names each path, the same
/// address over two paths is two series, and a skipped path's series go.
final class PathMetricsTests: XCTestCase {
    private func render(_ metrics: FeedMetrics) throws -> MetricsTests.Exposition {
        try MetricsTests.Exposition(String(decoding: metrics.exposition().text, as: UTF8.self))
    }

    private func row(_ interface: String, ok: Bool = true) -> ProbeRecord {
        var record = MetricsTests.okRecord(target: "edge", pin: ok ? .matched : .mismatch)
        record.resolvedAddress = "198.51.100.10"
        record.interface = interface
        record.interfaceKind = "wwan"
        if !ok {
            record.outcome = .failed
            record.trustVerdict = .untrusted(reason: "publicKeyPinMismatch")
        }
        return record
    }

    func testEachPathHasItsSeriesAndASkippedPathsGo() throws {
        let metrics = FeedMetrics()
        metrics.agent.addressProbesFinished(target: "edge", records: [row("eth0"), row("wwan0", ok: false)])
        var e = try render(metrics)
        XCTAssertEqual(e.series(named: "netvigil_address_probe_success"), [
            #"netvigil_address_probe_success{target="edge",address="198.51.100.10",interface="eth0"}"#: 1,
            #"netvigil_address_probe_success{target="edge",address="198.51.100.10",interface="wwan0"}"#: 0,
        ])
        XCTAssertEqual(e.samples[#"netvigil_address_tls_pin_match{target="edge",address="198.51.100.10",interface="wwan0"}"#], 0)

        var skipped = ProbeRecord(time: .now(), target: "edge", outcome: .skipped)
        skipped.interface = "wwan0"
        metrics.agent.addressProbesFinished(target: "edge", records: [row("eth0"), skipped])
        e = try render(metrics)
        XCTAssertEqual(Array(e.series(named: "netvigil_address_probe_success").keys),
                       [#"netvigil_address_probe_success{target="edge",address="198.51.100.10",interface="eth0"}"#])
    }
}
