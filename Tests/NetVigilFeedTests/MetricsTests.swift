import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilReachability
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `AgentMetrics` rendered through the Prometheus registry the feed serves, `GET /metrics`, and `promtool check metrics`.
final class MetricsTests: XCTestCase {
    // MARK: - Fixtures (MetricsFixtures in NetVigilTestSupport: the system tier's promtool and ps checks use them too)

    static let leafNotAfter = MetricsFixtures.leafNotAfter
    static let caNotAfter = MetricsFixtures.caNotAfter

    static func certificate(_ subject: String, notAfter: Timestamp) -> CertificateRecord {
        MetricsFixtures.certificate(subject, notAfter: notAfter)
    }

    /// An HTTPS probe that passed: every phase timed, trusted, pin matched, two certificates served.
    static func okRecord(target: String = "api", pin: PinVerdict? = .matched) -> ProbeRecord {
        MetricsFixtures.okRecord(target: target, pin: pin)
    }

    /// A probe refused at connect: no response, no TLS.
    static func refusedRecord(target: String = "api") -> ProbeRecord { MetricsFixtures.refusedRecord(target: target) }

    static func skippedRecord(target: String = "api") -> ProbeRecord { MetricsFixtures.skippedRecord(target: target) }

    /// Feeds every kind of value so every metric of the catalogue is present.
    static func feedEverything(_ metrics: AgentMetrics) throws { try MetricsFixtures.feedEverything(metrics) }

    typealias Exposition = MetricsFixtures.Exposition

    func render(_ metrics: FeedMetrics) throws -> Exposition {
        try Exposition(String(decoding: metrics.exposition().text, as: UTF8.self))
    }

    // MARK: - Values

    func testSuccessfulHTTPSProbeSeries() throws {
        let metrics = FeedMetrics(version: "9.9.9-test")
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        let e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probe_skipped{target="api"}"#], 0)
        let expectedPhases: [(String, Double)] = [
            ("resolve", 0.0015), ("connect", 0.00225), ("tls", 0.0125), ("processing", 0.03), ("transfer", 0.00075),
            ("total", 0.047),
        ]
        XCTAssertEqual(e.series(named: "netvigil_probe_duration_seconds").count, 6)
        for (phase, seconds) in expectedPhases {
            let value = try XCTUnwrap(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="\#(phase)"}"#], phase)
            XCTAssertEqual(value, seconds, accuracy: 1e-12, phase)
        }
        XCTAssertEqual(e.samples[#"netvigil_probe_http_status_code{target="api"}"#], 200)
        XCTAssertEqual(e.samples[#"netvigil_probe_http_version{target="api"}"#], 1.1)
        XCTAssertEqual(e.samples[#"netvigil_tls_trusted{target="api"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_tls_pin_match{target="api"}"#], 1)
        // The leaf expires first: min notAfter of the served chain, in seconds.
        XCTAssertEqual(e.samples[#"netvigil_tls_earliest_cert_expiry_timestamp_seconds{target="api"}"#], 1_798_761_600)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="ok"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="failed"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="skipped"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_build_info{version="9.9.9-test"}"#], 1)
        XCTAssertEqual(e.samples["netvigil_netlink_resyncs_total"], 0)
        XCTAssertEqual(e.type["netvigil_probes_total"], "counter")
        XCTAssertEqual(e.type["netvigil_probe_success"], "gauge")
    }

    func testFailedProbeWithoutTLSDropsTLSSeriesAndSkippedKeepsLastValues() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        metrics.agent.probeFinished(target: "api", record: Self.refusedRecord())
        var e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_http_status_code{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_http_version{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="connect"}"#], 0.00025)
        XCTAssertEqual(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="tls"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="processing"}"#], 0)
        XCTAssertTrue(e.series(named: "netvigil_tls_trusted").isEmpty)
        XCTAssertTrue(e.series(named: "netvigil_tls_pin_match").isEmpty)
        XCTAssertTrue(e.series(named: "netvigil_tls_earliest_cert_expiry_timestamp_seconds").isEmpty)
        XCTAssertNil(e.help["netvigil_tls_trusted"], "an emptied family has no HELP/TYPE lines left")
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="failed"}"#], 1)

        // Skipped (host NotReachable): counted, flagged, everything else as the last probe left it.
        metrics.agent.probeFinished(target: "api", record: Self.skippedRecord())
        e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_probe_skipped{target="api"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_duration_seconds{target="api",phase="total"}"#], 0.001)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="skipped"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_probes_total{target="api",outcome="ok"}"#], 1)

        // Back online: the skip flag clears.
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_probe_skipped{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_tls_trusted{target="api"}"#], 1)
    }

    func testPinAndTrustVerdictValues() throws {
        let metrics = FeedMetrics()
        let cases: [(PinVerdict?, Double?)] = [
            (.matched, 1), (.mismatch, 0), (.mismatchReported, 0), (.notPinned, -1), (.expired, -1),
            (.notEvaluated, nil), (nil, nil),
        ]
        for (verdict, expected) in cases {
            metrics.agent.probeFinished(target: "api", record: Self.okRecord(pin: verdict))
            XCTAssertEqual(try render(metrics).samples[#"netvigil_tls_pin_match{target="api"}"#], expected,
                           verdict?.rawValue ?? "nil")
        }
        var untrusted = Self.okRecord(pin: .notEvaluated)
        untrusted.outcome = .failed
        untrusted.trustVerdict = .untrusted(reason: "chainInvalid")
        metrics.agent.probeFinished(target: "api", record: untrusted)
        let e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_tls_trusted{target="api"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 0)
    }

    func testReachabilityStatusAndOneSeriesPerFlag() throws {
        let metrics = FeedMetrics()
        let host = try ReachabilityTarget(parsing: "api.example.test")
        metrics.agent.reachabilityChanged(ReachabilityEvaluation(
            target: .default, flags: [.reachable, .isDirect], interface: "eth0", interfaceKind: .ethernet))
        metrics.agent.reachabilityChanged(ReachabilityEvaluation(target: host, flags: [.reachable, .connectionRequired]))
        metrics.agent.reachabilityChanged(.unknown(try ReachabilityTarget(parsing: "192.0.2.10")))
        var e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_reachability_status{target="default"}"#], 2)
        XCTAssertEqual(e.samples[#"netvigil_reachability_status{target="api.example.test"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_reachability_status{target="192.0.2.10"}"#], -1)
        XCTAssertEqual(e.series(named: "netvigil_reachability_flag").count, 3 * ReachabilityFlags.named.count)
        for (_, name) in ReachabilityFlags.named {
            XCTAssertEqual(e.samples[#"netvigil_reachability_flag{target="default",flag="\#(name)"}"#],
                           ["reachable", "isDirect"].contains(name) ? 1 : 0, name)
            XCTAssertEqual(e.samples[#"netvigil_reachability_flag{target="api.example.test",flag="\#(name)"}"#],
                           ["reachable", "connectionRequired"].contains(name) ? 1 : 0, name)
            XCTAssertEqual(e.samples[#"netvigil_reachability_flag{target="192.0.2.10",flag="\#(name)"}"#], 0, name)
        }

        // A change flips the values in place; a WWAN route is status 1.
        metrics.agent.reachabilityChanged(ReachabilityEvaluation(target: .default, flags: [.reachable, .isWWAN]))
        e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_reachability_status{target="default"}"#], 1)
        XCTAssertEqual(e.samples[#"netvigil_reachability_flag{target="default",flag="isDirect"}"#], 0)
        XCTAssertEqual(e.samples[#"netvigil_reachability_flag{target="default",flag="isWWAN"}"#], 1)

        metrics.agent.reachabilityTargetRemoved(host)
        e = try render(metrics)
        XCTAssertFalse(e.samples.keys.contains { $0.contains(#"target="api.example.test""#) })
        XCTAssertEqual(e.samples[#"netvigil_reachability_status{target="default"}"#], 1)
    }

    func testResyncCounterAlertsAndBuildInfo() throws {
        let metrics = FeedMetrics(version: "1.2.3")
        metrics.agent.netlinkResyncs(total: 3)
        metrics.agent.netlinkResyncs(total: 3)
        var e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_netlink_resyncs_total"], 3)
        metrics.agent.netlinkResyncs(total: 5)
        XCTAssertEqual(try render(metrics).samples["netvigil_netlink_resyncs_total"], 5)
        // A new monitor starts again from 0: the counter restarts (a reset to Prometheus).
        metrics.agent.netlinkResyncs(total: 1)
        XCTAssertEqual(try render(metrics).samples["netvigil_netlink_resyncs_total"], 1)

        metrics.agent.alertSent(sink: "pager", kind: "pin_mismatch")
        metrics.agent.alertSent(sink: "pager", kind: "pin_mismatch")
        metrics.agent.alertSent(sink: "script", kind: "target_down")
        metrics.agent.alertsPending(4)
        metrics.agent.alertsPending(2)
        e = try render(metrics)
        XCTAssertEqual(e.samples[#"netvigil_alerts_sent_total{sink="pager",kind="pin_mismatch"}"#], 2)
        XCTAssertEqual(e.samples[#"netvigil_alerts_sent_total{sink="script",kind="target_down"}"#], 1)
        XCTAssertEqual(e.samples["netvigil_alerts_pending"], 2)
        XCTAssertEqual(e.series(named: "netvigil_build_info"), [#"netvigil_build_info{version="1.2.3"}"#: 1])
    }

    func testEveryCatalogueMetricIsExportedWithHelpAndType() throws {
        let metrics = FeedMetrics()
        try Self.feedEverything(metrics.agent)
        let e = try render(metrics)
        for description in AgentMetrics.catalogue {
            XCTAssertEqual(e.help[description.name], description.help, description.name)
            XCTAssertEqual(e.type[description.name], description.kind.rawValue, description.name)
            XCTAssertFalse(e.series(named: description.name).isEmpty, description.name)
        }
        // Nothing else, and no suffix added by the library (e.g. a second `_total`).
        XCTAssertEqual(Set(e.type.keys), Set(AgentMetrics.catalogue.map(\.name)))
        XCTAssertEqual(Set(e.help.keys), Set(AgentMetrics.catalogue.map(\.name)))
        // Label values are escaped as the text format requires.
        XCTAssertEqual(e.samples[#"netvigil_probe_success{target="web \"quoted\"\\path"}"#], 0)
    }

    func testTargetRemovedDropsEveryProbeSeriesOfThatTargetOnly() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        metrics.agent.probeFinished(target: "api", record: Self.skippedRecord())
        metrics.agent.probeFinished(target: "web", record: Self.okRecord(target: "web"))
        // A reachability target may carry the same name: it is not a probe series.
        metrics.agent.reachabilityChanged(ReachabilityEvaluation(
            target: try ReachabilityTarget(parsing: "api"), flags: [.reachable]))
        let before = try render(metrics)
        let apiProbeSeries = before.samples.keys.filter { $0.contains(#"target="api""#) && !$0.hasPrefix("netvigil_reachability") }
        // success, skipped, 6 phases, status code, http version, trusted, pin, expiry, served key, 3 outcomes
        XCTAssertEqual(apiProbeSeries.count, 17)

        metrics.agent.targetRemoved("api")
        let after = try render(metrics)
        XCTAssertTrue(after.samples.keys.filter { $0.contains(#"target="api""#) && !$0.hasPrefix("netvigil_reachability") }.isEmpty,
                      "left: \(after.samples.keys.filter { $0.contains(#"target="api""#) })")
        XCTAssertEqual(after.samples[#"netvigil_reachability_status{target="api"}"#], 2)
        let webSeries = before.samples.keys.filter { $0.contains(#"target="web""#) }
        XCTAssertEqual(webSeries.count, 17)
        for series in webSeries {
            XCTAssertEqual(after.samples[series], before.samples[series], series)
        }

        // Probed again after a reload re-added it: the series come back from zero.
        metrics.agent.probeFinished(target: "api", record: Self.refusedRecord())
        let again = try render(metrics)
        XCTAssertEqual(again.samples[#"netvigil_probes_total{target="api",outcome="failed"}"#], 1)
        XCTAssertEqual(again.samples[#"netvigil_probes_total{target="api",outcome="skipped"}"#], 0)
    }

    func testExpositionIsSortedAndStable() throws {
        let metrics = FeedMetrics()
        try Self.feedEverything(metrics.agent)
        metrics.agent.probeFinished(target: "aaa", record: Self.okRecord(target: "aaa"))
        let first = String(decoding: metrics.exposition().text, as: UTF8.self)
        XCTAssertEqual(String(decoding: metrics.exposition().text, as: UTF8.self), first)
        let lines = first.split(separator: "\n").map(String.init)
        let typeNames = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        XCTAssertEqual(typeNames, typeNames.sorted())
        XCTAssertEqual(typeNames.count, AgentMetrics.catalogue.count)
        // Each family: HELP, TYPE, then its samples in order.
        var index = 0
        while index < lines.count {
            XCTAssertTrue(lines[index].hasPrefix("# HELP "), lines[index])
            let name = lines[index].split(separator: " ")[2]
            XCTAssertEqual(lines[index + 1], "# TYPE \(name) \(lines[index + 1].split(separator: " ")[3])")
            index += 2
            var samples: [String] = []
            while index < lines.count, !lines[index].hasPrefix("#") {
                XCTAssertTrue(lines[index].hasPrefix(name + " ") || lines[index].hasPrefix(name + "{"), lines[index])
                samples.append(lines[index])
                index += 1
            }
            XCTAssertFalse(samples.isEmpty, String(name))
            XCTAssertEqual(samples, samples.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, String(name))
        }
        XCTAssertTrue(first.hasSuffix("\n"))
    }
}
