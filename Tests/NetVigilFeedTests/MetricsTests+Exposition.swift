import Foundation
import NetVigilAgent
import NetVigilStore
import Prometheus
import XCTest
@testable import NetVigilFeed

/// The per-target series are rendered from `AgentMetrics`' table, not registered in swift-prometheus; the text must be
/// byte for byte what the registry wrote when they were registered series.
extension MetricsTests {
    /// Every kind of per-target series: labels, optional phases, served key, findings, addresses and paths, a skipped
    /// first probe, a label change, a removed target and reachability.
    static func feedEveryTargetSeries(_ metrics: AgentMetrics) throws {
        try feedEverything(metrics)
        let labels = [("endpoint", "https://api.example.test/health"), ("site", "fra1")]
        var phases = okRecord(target: "mail")
        phases.timings.starttls = 3.5
        phases.timings.proxy = 1.25
        phases.timings.revocation = 80
        metrics.probeFinished(target: "mail", labels: labels, record: phases, findings: 0)
        metrics.probeFinished(target: "mail", labels: labels, record: skippedRecord(target: "mail"))
        metrics.probeFinished(target: "offline", labels: [("endpoint", "https://offline/")], record: skippedRecord())
        metrics.probeFinished(target: "moved", labels: labels, record: okRecord())
        metrics.probeFinished(target: "moved", labels: [labels[0], ("site", "ams1")], record: refusedRecord())
        metrics.probeFinished(target: "gone", record: okRecord())
        metrics.targetRemoved("gone")
        var path = okRecord(target: "edge")
        path.resolvedAddress = "198.51.100.10"
        path.interface = "wwan0"
        metrics.addressProbesFinished(target: "paths", records: [path])
    }

    /// The lines that do not depend on the process or the clock.
    static func stableLines(_ exposition: [UInt8]) -> String {
        String(decoding: exposition, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("process_") && !$0.hasPrefix("netvigil_config_last_reload_success_timestamp_seconds") }
            .joined(separator: "\n") + "\n"
    }

    func testTargetSeriesAreTheRegistrysText() throws {
        let metrics = FeedMetrics(version: "9.9.9-test")
        try Self.feedEveryTargetSeries(metrics.agent)
        let text = Self.stableLines(metrics.exposition().text)
        // NETVIGIL_DUMP_EXPOSITION=FILE writes the text, to compare with another build.
        if let path = ProcessInfo.processInfo.environment["NETVIGIL_DUMP_EXPOSITION"] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(text, Self.registryExposition)
    }

    /// One way of writing values for the whole text: a phase of 0.233 ms in the table's lines, a gauge and a
    /// histogram sum in the registry's, each the shortest way that reads back as the value rounded, not with the
    /// float noise Swift prints (`0.00023300000000000003`, `0.30000000000000004`).
    func testValuesOfTheTableAndOfTheRegistryAreWrittenTheSameShortWay() throws {
        let metrics = FeedMetrics()
        var record = Self.okRecord()
        record.timings.connect = 0.233
        metrics.agent.probeFinished(target: "api", record: record)
        metrics.registry.makeGauge(descriptor: MetricNameDescriptor(metricName: "test_noisy_ratio", unitName: "", helpText: "")).set(0.1 + 0.2)
        let histogram = metrics.registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(metricName: "test_noisy", unitName: "seconds", helpText: ""), buckets: [0.001, 1])
        histogram.record(0.1)
        histogram.record(0.2)
        let text = String(decoding: metrics.exposition().text, as: UTF8.self)
        XCTAssertTrue(text.contains("netvigil_probe_duration_seconds{target=\"api\",phase=\"connect\"} 0.000233\n"), text)
        XCTAssertTrue(text.contains("\ntest_noisy_ratio 0.3\n"), text)
        XCTAssertTrue(text.contains("\ntest_noisy_seconds_sum 0.3\n"), text)
        XCTAssertTrue(text.contains("test_noisy_seconds_bucket{le=\"+Inf\"} 2\n"), text)
        XCTAssertFalse(text.contains("00000000000"), "float noise in \(text)")
    }

    /// 2,000 targets: nothing per target in the registry, every series in the exposition, none left after removal.
    func testThousandsOfTargetsLiveInTheTableAndGoWithTheirTargets() throws {
        let metrics = FeedMetrics()
        let targets = (0..<2_000).map { "t\($0)" }
        for target in targets {
            metrics.agent.probeFinished(target: target, labels: [("endpoint", "https://127.0.0.1/")],
                                        record: Self.okRecord(target: target))
        }
        var registered: [UInt8] = []
        metrics.registry.emit(into: &registered)
        XCTAssertFalse(String(decoding: registered, as: UTF8.self).contains("target="), "per-target series are registered")
        let e = try render(metrics)
        XCTAssertEqual(e.series(named: "netvigil_probe_success").count, 2_000)
        XCTAssertEqual(e.series(named: "netvigil_probes_total").count, 6_000)
        XCTAssertEqual(e.samples.keys.filter { $0.contains(#"target="t1999""#) }.count, 17)
        for target in targets { metrics.agent.targetRemoved(target) }
        let left = try render(metrics)
        XCTAssertTrue(left.samples.keys.filter { $0.contains("target=") }.isEmpty)
        XCTAssertNil(left.help["netvigil_probe_success"], "an emptied family has no HELP/TYPE lines left")
    }

    /// The chunks are the whole text in sorted order (families by name, each gauge's and counter's lines by their
    /// bytes), also for target names that are prefixes of each other or need escaping; every chunk but the last is
    /// about `chunkSize`.
    func testChunksAreTheTextInSortedOrder() throws {
        let metrics = FeedMetrics(version: "9.9.9-test")
        try Self.feedEveryTargetSeries(metrics.agent)
        let awkward = ["a", "a-b", "a\"b", "a\\", "a\\\"", "a\nb", "ab", "A", "é", "a b", "a,b", "a}", "a\"", ""]
        for target in (awkward + (0..<3_000).map { "t\($0)" }).shuffled() {
            metrics.agent.probeFinished(target: target, labels: [("endpoint", "https://x.test/")],
                                        record: Self.okRecord(target: target))
        }
        var chunks = metrics.exposition()
        var pieces: [[UInt8]] = []
        while let piece = chunks.next() { pieces.append(piece) }
        XCTAssertGreaterThan(pieces.count, 10)
        for piece in pieces.dropLast() {
            XCTAssertTrue((MetricsExposition.chunkSize..<MetricsExposition.chunkSize + 4_096).contains(piece.count))
        }
        let text = pieces.flatMap { $0 }
        XCTAssertEqual(text, metrics.exposition().text)
        let resorted = MetricsExposition.families(text).sorted { $0.name < $1.name }.flatMap(\.text)
        XCTAssertEqual(String(decoding: text, as: UTF8.self), String(decoding: resorted, as: UTF8.self))
        let e = try render(metrics)
        for target in awkward {
            let label = "target=\"" + target.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
            XCTAssertEqual(e.samples.keys.filter { $0.contains("{" + label + ",") }.count, 17, target)
        }
    }

    /// What swift-prometheus rendered for `feedEveryTargetSeries` when every series was registered with it (before the
    /// per-target series moved to `TargetSeriesTable`): the exposition must stay byte for byte the same.
    static let registryExposition = #"""
        # HELP netvigil_address_probe_success addresses: all and source: { interfaces: } targets (interface: the path's, only on those): 1 if the last probe of this address succeeded, 0 if it failed.
        # TYPE netvigil_address_probe_success gauge
        netvigil_address_probe_success{target="edge",address="127.0.0.1"} 1.0
        netvigil_address_probe_success{target="edge",address="127.0.0.2"} 0.0
        netvigil_address_probe_success{target="paths",address="198.51.100.10",interface="wwan0"} 1.0
        # HELP netvigil_address_tls_pin_match addresses: all and source: { interfaces: } targets (interface: the path's, only on those): the pin verdict of this address, valued as netvigil_tls_pin_match; absent without a pin verdict.
        # TYPE netvigil_address_tls_pin_match gauge
        netvigil_address_tls_pin_match{target="edge",address="127.0.0.1"} 1.0
        netvigil_address_tls_pin_match{target="paths",address="198.51.100.10",interface="wwan0"} 1.0
        # HELP netvigil_address_tls_trusted addresses: all and source: { interfaces: } targets (interface: the path's, only on those): 1 if the chain this address served was trusted, 0 if not; absent without a TLS verdict.
        # TYPE netvigil_address_tls_trusted gauge
        netvigil_address_tls_trusted{target="edge",address="127.0.0.1"} 1.0
        netvigil_address_tls_trusted{target="paths",address="198.51.100.10",interface="wwan0"} 1.0
        # HELP netvigil_alerts_pending Alerts in the durable outbox that are not delivered yet.
        # TYPE netvigil_alerts_pending gauge
        netvigil_alerts_pending 3.0
        # HELP netvigil_alerts_sent_total Alerts delivered, by sink and alert kind.
        # TYPE netvigil_alerts_sent_total counter
        netvigil_alerts_sent_total{sink="pager",kind="pin_mismatch"} 1
        # HELP netvigil_build_info Always 1; the version label is the running netvigil version.
        # TYPE netvigil_build_info gauge
        netvigil_build_info{version="9.9.9-test"} 1.0
        # HELP netvigil_config_last_reload_success_timestamp_seconds Time of the last successful configuration load, as a Unix time in seconds.
        # TYPE netvigil_config_last_reload_success_timestamp_seconds gauge
        # HELP netvigil_config_last_reload_successful 1 if the last configuration load (start or SIGHUP) succeeded, 0 if the file was refused and the previous configuration runs on.
        # TYPE netvigil_config_last_reload_successful gauge
        netvigil_config_last_reload_successful 1.0
        # HELP netvigil_config_reload_running_seconds How long the configuration reload in progress has run, in seconds; 0 when none runs. Reloads run one at a time: one stuck past 30 s also makes /healthz answer 503.
        # TYPE netvigil_config_reload_running_seconds gauge
        netvigil_config_reload_running_seconds 0.0
        # HELP netvigil_feed_event_subscribers Open /v1/events streams.
        # TYPE netvigil_feed_event_subscribers gauge
        netvigil_feed_event_subscribers 1.0
        # HELP netvigil_feed_event_subscribers_refused_total /v1/events requests answered 503 because feed.max_event_subscribers streams were open.
        # TYPE netvigil_feed_event_subscribers_refused_total counter
        netvigil_feed_event_subscribers_refused_total 1
        # HELP netvigil_fleet_backlog_rows Local rows not shipped to PostgreSQL yet, by stream (probe_results, reachability_events, alerts).
        # TYPE netvigil_fleet_backlog_rows gauge
        netvigil_fleet_backlog_rows{stream="probe_results"} 3.0
        # HELP netvigil_fleet_errors_total Failed shipping attempts by kind: connect, tls, authentication, permission, server, local_store.
        # TYPE netvigil_fleet_errors_total counter
        netvigil_fleet_errors_total{kind="authentication"} 0
        netvigil_fleet_errors_total{kind="connect"} 1
        netvigil_fleet_errors_total{kind="local_store"} 0
        netvigil_fleet_errors_total{kind="permission"} 0
        netvigil_fleet_errors_total{kind="server"} 0
        netvigil_fleet_errors_total{kind="tls"} 0
        # HELP netvigil_fleet_expired_rows_total Rows local retention deleted before they were shipped: missing from the central database.
        # TYPE netvigil_fleet_expired_rows_total counter
        netvigil_fleet_expired_rows_total{stream="probe_results"} 1
        # HELP netvigil_fleet_last_success_timestamp_seconds When a batch or heartbeat last reached PostgreSQL, as a Unix time in seconds; absent before the first.
        # TYPE netvigil_fleet_last_success_timestamp_seconds gauge
        netvigil_fleet_last_success_timestamp_seconds 1795000000.0
        # HELP netvigil_fleet_shipped_rows_total Rows PostgreSQL acknowledged (duplicates of a retried batch included), by stream.
        # TYPE netvigil_fleet_shipped_rows_total counter
        netvigil_fleet_shipped_rows_total{stream="probe_results"} 10
        # HELP netvigil_fleet_shipping_lag_seconds Age of the oldest local row PostgreSQL does not hold yet, in seconds; 0 when everything is shipped.
        # TYPE netvigil_fleet_shipping_lag_seconds gauge
        netvigil_fleet_shipping_lag_seconds 1.5
        # HELP netvigil_healthy 1 while the probe pipeline is live (due probes start, the store accepts writes), 0 when /healthz says 503.
        # TYPE netvigil_healthy gauge
        netvigil_healthy 1.0
        # HELP netvigil_netlink_resyncs_total Netlink overruns (ENOBUFS) that forced a full resynchronization of the reachability mirror.
        # TYPE netvigil_netlink_resyncs_total counter
        netvigil_netlink_resyncs_total 2
        # HELP netvigil_probe_duration_seconds Duration of each phase of the target's last probe that ran, in seconds (0 for a phase that did not run).
        # TYPE netvigil_probe_duration_seconds gauge
        netvigil_probe_duration_seconds{target="api",phase="connect"} 0.00225
        netvigil_probe_duration_seconds{target="api",phase="processing"} 0.03
        netvigil_probe_duration_seconds{target="api",phase="resolve"} 0.0015
        netvigil_probe_duration_seconds{target="api",phase="tls"} 0.0125
        netvigil_probe_duration_seconds{target="api",phase="total"} 0.047
        netvigil_probe_duration_seconds{target="api",phase="transfer"} 0.00075
        netvigil_probe_duration_seconds{target="mail",phase="connect",endpoint="https://api.example.test/health",site="fra1"} 0.00225
        netvigil_probe_duration_seconds{target="mail",phase="processing",endpoint="https://api.example.test/health",site="fra1"} 0.03
        netvigil_probe_duration_seconds{target="mail",phase="proxy",endpoint="https://api.example.test/health",site="fra1"} 0.00125
        netvigil_probe_duration_seconds{target="mail",phase="resolve",endpoint="https://api.example.test/health",site="fra1"} 0.0015
        netvigil_probe_duration_seconds{target="mail",phase="revocation",endpoint="https://api.example.test/health",site="fra1"} 0.08
        netvigil_probe_duration_seconds{target="mail",phase="starttls",endpoint="https://api.example.test/health",site="fra1"} 0.0035
        netvigil_probe_duration_seconds{target="mail",phase="tls",endpoint="https://api.example.test/health",site="fra1"} 0.0125
        netvigil_probe_duration_seconds{target="mail",phase="total",endpoint="https://api.example.test/health",site="fra1"} 0.047
        netvigil_probe_duration_seconds{target="mail",phase="transfer",endpoint="https://api.example.test/health",site="fra1"} 0.00075
        netvigil_probe_duration_seconds{target="moved",phase="connect",endpoint="https://api.example.test/health",site="ams1"} 0.00025
        netvigil_probe_duration_seconds{target="moved",phase="processing",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_duration_seconds{target="moved",phase="resolve",endpoint="https://api.example.test/health",site="ams1"} 0.0005
        netvigil_probe_duration_seconds{target="moved",phase="tls",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_duration_seconds{target="moved",phase="total",endpoint="https://api.example.test/health",site="ams1"} 0.001
        netvigil_probe_duration_seconds{target="moved",phase="transfer",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="connect"} 0.00025
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="processing"} 0.0
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="resolve"} 0.0005
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="tls"} 0.0
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="total"} 0.001
        netvigil_probe_duration_seconds{target="web \"quoted\"\\path",phase="transfer"} 0.0
        # HELP netvigil_probe_http_status_code HTTP status code of the last probe's final response, 0 when no response arrived.
        # TYPE netvigil_probe_http_status_code gauge
        netvigil_probe_http_status_code{target="api"} 200.0
        netvigil_probe_http_status_code{target="mail",endpoint="https://api.example.test/health",site="fra1"} 200.0
        netvigil_probe_http_status_code{target="moved",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_http_status_code{target="web \"quoted\"\\path"} 0.0
        # HELP netvigil_probe_http_version HTTP version of the last probe's final response (1.1, 2), 0 when no response arrived.
        # TYPE netvigil_probe_http_version gauge
        netvigil_probe_http_version{target="api"} 1.1
        netvigil_probe_http_version{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1.1
        netvigil_probe_http_version{target="moved",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_http_version{target="web \"quoted\"\\path"} 0.0
        # HELP netvigil_probe_skipped 1 if the target's last probe was skipped because its host was NotReachable, else 0.
        # TYPE netvigil_probe_skipped gauge
        netvigil_probe_skipped{target="api"} 0.0
        netvigil_probe_skipped{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1.0
        netvigil_probe_skipped{target="moved",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_skipped{target="offline",endpoint="https://offline/"} 1.0
        netvigil_probe_skipped{target="web \"quoted\"\\path"} 0.0
        # HELP netvigil_probe_success 1 if the target's last probe succeeded, 0 if it failed; a skipped probe keeps the previous value.
        # TYPE netvigil_probe_success gauge
        netvigil_probe_success{target="api"} 1.0
        netvigil_probe_success{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1.0
        netvigil_probe_success{target="moved",endpoint="https://api.example.test/health",site="ams1"} 0.0
        netvigil_probe_success{target="web \"quoted\"\\path"} 0.0
        # HELP netvigil_probes_total Probes finished, by outcome (ok, failed, skipped).
        # TYPE netvigil_probes_total counter
        netvigil_probes_total{target="api",outcome="failed"} 0
        netvigil_probes_total{target="api",outcome="ok"} 1
        netvigil_probes_total{target="api",outcome="skipped"} 0
        netvigil_probes_total{target="mail",outcome="failed",endpoint="https://api.example.test/health",site="fra1"} 0
        netvigil_probes_total{target="mail",outcome="ok",endpoint="https://api.example.test/health",site="fra1"} 1
        netvigil_probes_total{target="mail",outcome="skipped",endpoint="https://api.example.test/health",site="fra1"} 1
        netvigil_probes_total{target="moved",outcome="failed",endpoint="https://api.example.test/health",site="ams1"} 1
        netvigil_probes_total{target="moved",outcome="ok",endpoint="https://api.example.test/health",site="ams1"} 0
        netvigil_probes_total{target="moved",outcome="skipped",endpoint="https://api.example.test/health",site="ams1"} 0
        netvigil_probes_total{target="offline",outcome="failed",endpoint="https://offline/"} 0
        netvigil_probes_total{target="offline",outcome="ok",endpoint="https://offline/"} 0
        netvigil_probes_total{target="offline",outcome="skipped",endpoint="https://offline/"} 1
        netvigil_probes_total{target="web \"quoted\"\\path",outcome="failed"} 1
        netvigil_probes_total{target="web \"quoted\"\\path",outcome="ok"} 0
        netvigil_probes_total{target="web \"quoted\"\\path",outcome="skipped"} 0
        # HELP netvigil_reachability_flag 1 if the SCNetworkReachability-style flag is set for the reachability target, else 0.
        # TYPE netvigil_reachability_flag gauge
        netvigil_reachability_flag{target="api.example.test",flag="connectionOnDemand"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="connectionOnTraffic"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="connectionRequired"} 1.0
        netvigil_reachability_flag{target="api.example.test",flag="interventionRequired"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="isDirect"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="isLocalAddress"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="isWWAN"} 0.0
        netvigil_reachability_flag{target="api.example.test",flag="reachable"} 1.0
        netvigil_reachability_flag{target="api.example.test",flag="transientConnection"} 0.0
        netvigil_reachability_flag{target="default",flag="connectionOnDemand"} 0.0
        netvigil_reachability_flag{target="default",flag="connectionOnTraffic"} 0.0
        netvigil_reachability_flag{target="default",flag="connectionRequired"} 0.0
        netvigil_reachability_flag{target="default",flag="interventionRequired"} 0.0
        netvigil_reachability_flag{target="default",flag="isDirect"} 1.0
        netvigil_reachability_flag{target="default",flag="isLocalAddress"} 0.0
        netvigil_reachability_flag{target="default",flag="isWWAN"} 0.0
        netvigil_reachability_flag{target="default",flag="reachable"} 1.0
        netvigil_reachability_flag{target="default",flag="transientConnection"} 0.0
        # HELP netvigil_reachability_status AFNetworking reachability status: -1 Unknown, 0 NotReachable, 1 ReachableViaWWAN, 2 ReachableViaWiFi.
        # TYPE netvigil_reachability_status gauge
        netvigil_reachability_status{target="api.example.test"} 0.0
        netvigil_reachability_status{target="default"} 2.0
        # HELP netvigil_resource_exhausted_total Probes that failed because the agent ran out of descriptors or memory (EMFILE, ENFILE, ENOMEM); never a target_down.
        # TYPE netvigil_resource_exhausted_total counter
        netvigil_resource_exhausted_total 1
        # HELP netvigil_revocation_fetches_refused_total Revocation fetches (CRL, OCSP) refused because they would connect to a link-local or cloud-metadata address or to the daemon's own feed.
        # TYPE netvigil_revocation_fetches_refused_total counter
        netvigil_revocation_fetches_refused_total 0
        # HELP netvigil_scheduler_skipped_ticks_total Ticks dropped because the target's previous probe was still running when they came.
        # TYPE netvigil_scheduler_skipped_ticks_total counter
        netvigil_scheduler_skipped_ticks_total 1.0
        # HELP netvigil_scheduler_start_lateness_seconds How late probes started against their schedule over the last 10000 starts, in seconds, at percentile 50, 99 and 100 (the largest); absent before the first probe.
        # TYPE netvigil_scheduler_start_lateness_seconds gauge
        netvigil_scheduler_start_lateness_seconds{percentile="100"} 0.02
        netvigil_scheduler_start_lateness_seconds{percentile="50"} 0.001
        netvigil_scheduler_start_lateness_seconds{percentile="99"} 0.004
        # HELP netvigil_store_dropped_rows_total Probe and reachability rows dropped because the in-memory queue overflowed while the store could not be written.
        # TYPE netvigil_store_dropped_rows_total counter
        netvigil_store_dropped_rows_total 2
        # HELP netvigil_store_queued_rows Rows accepted but not yet committed to the store.
        # TYPE netvigil_store_queued_rows gauge
        netvigil_store_queued_rows 0.0
        # HELP netvigil_store_writable 1 while the store commits writes, 0 while writes fail (disk full, read-only); results wait in memory.
        # TYPE netvigil_store_writable gauge
        netvigil_store_writable 1.0
        # HELP netvigil_tls_earliest_cert_expiry_timestamp_seconds Earliest notAfter of the certificates the server sent in the last probe, as a Unix time in seconds.
        # TYPE netvigil_tls_earliest_cert_expiry_timestamp_seconds gauge
        netvigil_tls_earliest_cert_expiry_timestamp_seconds{target="api"} 1798761600.0
        netvigil_tls_earliest_cert_expiry_timestamp_seconds{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1798761600.0
        # HELP netvigil_tls_findings Baseline Requirements findings of the chain the server sent in the last probe (warnings; the verdict is unchanged).
        # TYPE netvigil_tls_findings gauge
        netvigil_tls_findings{target="api"} 1.0
        netvigil_tls_findings{target="mail",endpoint="https://api.example.test/health",site="fra1"} 0.0
        # HELP netvigil_tls_pin_match 1 if a pin matched, 0 on a mismatch (report-only included), -1 when not pinned or the pins expired; absent without a pin verdict.
        # TYPE netvigil_tls_pin_match gauge
        netvigil_tls_pin_match{target="api"} 1.0
        netvigil_tls_pin_match{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1.0
        # HELP netvigil_tls_served_key_info Always 1; pin is the SPKI pin (sha256/...) of the leaf key the server sent in the last probe that got a chain.
        # TYPE netvigil_tls_served_key_info gauge
        netvigil_tls_served_key_info{target="api",pin="sha256/AAAA"} 1.0
        netvigil_tls_served_key_info{target="mail",pin="sha256/AAAA",endpoint="https://api.example.test/health",site="fra1"} 1.0
        # HELP netvigil_tls_trusted 1 if the target's TLS policy trusted the served chain, 0 if not; absent when the last probe had no TLS verdict.
        # TYPE netvigil_tls_trusted gauge
        netvigil_tls_trusted{target="api"} 1.0
        netvigil_tls_trusted{target="mail",endpoint="https://api.example.test/health",site="fra1"} 1.0
        # HELP process_cpu_seconds_total CPU time the netvigil process has used, user and system, in seconds.
        # TYPE process_cpu_seconds_total counter
        # HELP process_max_fds The netvigil process's open-file limit (soft RLIMIT_NOFILE); absent when unlimited.
        # TYPE process_max_fds gauge
        # HELP process_open_fds File descriptors the netvigil process has open.
        # TYPE process_open_fds gauge
        # HELP process_resident_memory_bytes Resident set size of the netvigil process, in bytes.
        # TYPE process_resident_memory_bytes gauge
        # HELP process_start_time_seconds When the netvigil process started, as a Unix time in seconds.
        # TYPE process_start_time_seconds gauge

        """#
}
