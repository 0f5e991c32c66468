import Foundation
import NetVigilTestSupport
import XCTest

/// deploy/prometheus and deploy/alertmanager.example.yml, checked by the real tools: promtool (Debian `prometheus`)
/// and amtool (Debian `prometheus-alertmanager`), both installed by `make test`.
final class PrometheusRulesTests: XCTestCase {
    private let deploy = SchemaValidator.repositoryRoot.appendingPathComponent("deploy")
    private var prometheus: URL { deploy.appendingPathComponent("prometheus") }

    /// The alerts issue #7 asks for.
    private let requiredAlerts = [
        "NetvigilPinMismatch", "NetvigilTrustFailure", "NetvigilCertificateExpiresSoon", "NetvigilTargetDown",
        "NetvigilHostNotReachable", "NetvigilAlertsUndelivered", "NetvigilAgentDown",
        "NetvigilPinMismatchAllAgents", "NetvigilPinMismatchSomeAgents", "NetvigilDescriptorsNearLimit",
    ]

    /// The metric names the daemon's /metrics serves (issue #6 §4), plus Prometheus's own `up`.
    private let knownMetrics: Set<String> = [
        "netvigil_probe_success", "netvigil_probe_skipped", "netvigil_probe_duration_seconds", "netvigil_probe_http_status_code",
        "netvigil_tls_trusted", "netvigil_tls_pin_match", "netvigil_tls_earliest_cert_expiry_timestamp_seconds",
        "netvigil_reachability_status", "netvigil_reachability_flag", "netvigil_netlink_resyncs_total",
        "netvigil_alerts_pending", "netvigil_alerts_sent_total", "netvigil_build_info", "up",
        "process_open_fds", "process_max_fds",
    ]

    /// A tool from a Debian package; its absence fails the test (make test installs the package).
    private func requireTool(_ name: String, package: String) throws -> URL {
        let url = URL(fileURLWithPath: "/usr/bin/\(name)")
        return try XCTUnwrap(FileManager.default.isExecutableFile(atPath: url.path) ? url : nil,
                             "\(name) missing: make test installs the Debian package \(package)")
    }

    func testPromtoolChecksTheRules() throws {
        let promtool = try requireTool("promtool", package: "prometheus")
        let result = try ProcessRunner.run(["check", "rules", prometheus.appendingPathComponent("netvigil.rules.yml").path],
                                           executable: promtool)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("SUCCESS: \(requiredAlerts.count) rules found"), result.stdout + result.stderr)
    }

    func testPromtoolUnitTestsPass() throws {
        let promtool = try requireTool("promtool", package: "prometheus")
        let result = try ProcessRunner.run(["test", "rules", "netvigil.rules.test.yml"], executable: promtool,
                                           currentDirectory: prometheus)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("SUCCESS"), result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("FAILED"), result.stdout + result.stderr)
    }

    func testEveryRuleHasSeverityAnnotationsKnownMetricsAndFiringAndQuietTests() throws {
        let rules = try String(contentsOf: prometheus.appendingPathComponent("netvigil.rules.yml"), encoding: .utf8)
        let tests = try String(contentsOf: prometheus.appendingPathComponent("netvigil.rules.test.yml"), encoding: .utf8)
        let blocks = rules.components(separatedBy: "- alert: ").dropFirst()
        let names = blocks.map { String($0.prefix { !$0.isNewline }) }
        XCTAssertEqual(names.sorted(), requiredAlerts.sorted())
        for block in blocks {
            let name = String(block.prefix { !$0.isNewline })
            XCTAssertTrue(block.range(of: #"severity: (critical|warning)\n"#, options: .regularExpression) != nil, name)
            XCTAssertTrue(block.contains("summary: "), name)
            XCTAssertTrue(block.contains("description: "), name)
            let expression = try XCTUnwrap(block.components(separatedBy: "expr: ").dropFirst().first?
                .prefix { !$0.isNewline }, name)
            let identifiers = expression.matches(of: /[a-zA-Z_:][a-zA-Z0-9_:]*(?=[{\s]|$)/).map { String($0.output) }
            let metrics = identifiers.filter { $0 == "up" || $0.hasPrefix("netvigil_") || $0.hasPrefix("process_") }
            XCTAssertFalse(metrics.isEmpty, "\(name): \(expression)")
            for metric in metrics {
                XCTAssertTrue(knownMetrics.contains(metric), "\(name) uses \(metric), which the daemon does not serve")
            }
            // promtool unit tests: at least one evaluation where it fires and one where it must not.
            let firing = try Regex("alertname: \(name)\\n\\s+exp_alerts:\\n\\s+- exp_labels:")
            let quiet = try Regex("alertname: \(name)\\n\\s+exp_alerts: \\[\\]")
            XCTAssertTrue(tests.contains(firing), "\(name) has no firing test case")
            XCTAssertTrue(tests.contains(quiet), "\(name) has no not-firing test case")
        }
    }

    func testScrapeConfigIsValidAndInstanceIsTheHost() throws {
        let promtool = try requireTool("promtool", package: "prometheus")
        let directory = try TemporaryDirectory()
        // The example reads the feed token from /etc/prometheus; point it at a temporary one for the full check.
        let token = try directory.write("netvigil.token", "fleet-token\n")
        let scrape = try String(contentsOf: prometheus.appendingPathComponent("scrape.yml"), encoding: .utf8)
        XCTAssertTrue(scrape.contains("credentials_file: /etc/prometheus/netvigil.token"), scrape)
        _ = try directory.write("scrape.yml", scrape.replacingOccurrences(of: "/etc/prometheus/netvigil.token", with: token))
        try FileManager.default.copyItem(at: prometheus.appendingPathComponent("netvigil.rules.yml"),
                                         to: directory.url.appendingPathComponent("netvigil.rules.yml"))

        let check = try ProcessRunner.run(["check", "config", "scrape.yml"], executable: promtool, currentDirectory: directory.url)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("SUCCESS: 1 rule files found"), check.stdout)

        let discovery = try ProcessRunner.run(["check", "service-discovery", "--timeout=3s", "scrape.yml", "netvigil"], executable: promtool,
                                              currentDirectory: directory.url)
        XCTAssertEqual(discovery.status, 0, discovery.stdout + discovery.stderr)
        let targets = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(discovery.stdout.utf8)) as? [[String: Any]],
                                    discovery.stdout)
        XCTAssertFalse(targets.isEmpty)
        for target in targets {
            let labels = try XCTUnwrap(target["labels"] as? [String: String])
            let address = try XCTUnwrap(labels["__address__"])
            XCTAssertEqual(labels["instance"], String(address.prefix { $0 != ":" }), "instance is the host without the port")
            XCTAssertEqual(labels["job"], "netvigil", "NetvigilAgentDown selects up{job=\"netvigil\"}")
        }
    }

    func testAlertmanagerExampleIsValidAndRoutesBySeverity() throws {
        let amtool = try requireTool("amtool", package: "prometheus-alertmanager")
        let config = deploy.appendingPathComponent("alertmanager.example.yml").path
        let check = try ProcessRunner.run(["check-config", config], executable: amtool)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("SUCCESS"), check.stdout)

        let expectations: [(labels: [String], receiver: String)] = [
            (["alertname=NetvigilPinMismatch", "severity=critical", "instance=web1"], "netvigil-pager"),
            (["alertname=NetvigilAgentDown", "severity=critical", "instance=web1"], "netvigil-pager"),
            (["alertname=NetvigilTargetDown", "severity=warning", "instance=web1"], "netvigil-team"),
            (["alertname=NetvigilCertificateExpiresSoon", "severity=warning"], "netvigil-team"),
            (["alertname=SomethingElse", "severity=critical"], "default"),
        ]
        for (labels, receiver) in expectations {
            let route = try ProcessRunner.run(["config", "routes", "test", "--config.file=\(config)"] + labels, executable: amtool)
            XCTAssertEqual(route.status, 0, route.stdout + route.stderr)
            XCTAssertEqual(route.stdout.trimmingCharacters(in: .whitespacesAndNewlines), receiver, "\(labels)")
        }
    }
}
