import Foundation
import NetVigilTestSupport
import XCTest

/// dashboards/netvigil-overview.json and deploy/prometheus/netvigil.rules.yml against the real thing: a real
/// Prometheus (Debian `prometheus`, installed by `make test`) scrapes the real daemon every second while it probes a
/// plain-HTTP server, nginx with a pinned key (matching and mismatching pins) and a closed port, and delivers alerts
/// to a webhook. Every dashboard expression (template variables set to match all), every variable query and every
/// rule expression must run through `/api/v1/query` without error and use only metric names the daemon serves.
final class GrafanaDashboardTests: XCTestCase {
    static let prometheusBinary = "/usr/bin/prometheus"
    static let dashboardURL = SchemaValidator.repositoryRoot.appendingPathComponent("dashboards/netvigil-overview.json")
    static let rulesURL = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/prometheus/netvigil.rules.yml")
    /// What Grafana puts in for its built-in variables (a 15 s datasource scrape interval gives `$__rate_interval` 1m).
    static let builtInVariables = ["__rate_interval": "1m", "__interval": "15s", "__range": "1h"]
    /// Core Grafana panels only: the dashboard must import without plugins.
    static let corePanelTypes: Set<String> = ["row", "stat", "table", "timeseries", "state-timeline", "bargauge"]
    /// The series the dashboard must show (issue #7 §4).
    static let requiredMetrics: Set<String> = [
        "netvigil_reachability_status", "netvigil_probe_success", "netvigil_probe_duration_seconds",
        "netvigil_tls_pin_match", "netvigil_tls_trusted", "netvigil_tls_earliest_cert_expiry_timestamp_seconds",
        "netvigil_alerts_pending", "netvigil_alerts_sent_total", "netvigil_netlink_resyncs_total", "netvigil_build_info",
    ]
    /// Probe metrics, whose `target` label is the probe target the `target` variable selects.
    static let probeMetricPrefixes = ["netvigil_probe", "netvigil_tls_"]

    /// Ends the scenario early with the reason and the logs that explain it.
    struct Aborted: Error, CustomStringConvertible {
        let description: String
    }

    var directory: TemporaryDirectory!
    var processes: [Process] = []
    var nginxes: [NginxProcess] = []
    var prometheusPort = 0

    override func tearDown() {
        for nginx in nginxes { nginx.stop() }
        nginxes.removeAll()
        // SIGTERM first: nginx's master takes its worker along, the daemon and Prometheus shut down cleanly.
        ProcessRunner.stopAll(processes)
        processes.removeAll()
        directory = nil
    }

    // MARK: The dashboard as a document

    private struct Query {
        let panel: String
        let refId: String
        let expression: String
    }

    private func loadDashboard() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.dashboardURL)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any], "the dashboard is not a JSON object")
    }

    /// Every panel, those inside collapsed rows included.
    private func panels(of dashboard: [String: Any]) -> [[String: Any]] {
        let top = dashboard["panels"] as? [[String: Any]] ?? []
        return top.flatMap { [$0] + ($0["panels"] as? [[String: Any]] ?? []) }
    }

    private func queries(of dashboard: [String: Any]) -> [Query] {
        panels(of: dashboard).flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).map {
                Query(panel: panel["title"] as? String ?? "?", refId: $0["refId"] as? String ?? "?",
                      expression: $0["expr"] as? String ?? "")
            }
        }
    }

    private func variables(of dashboard: [String: Any]) -> [[String: Any]] {
        (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
    }

    /// The query of a `query` variable (Grafana stores a string or `{query: ...}`).
    private func variableQuery(_ variable: [String: Any]) -> String? {
        (variable["query"] as? String) ?? ((variable["query"] as? [String: Any])?["query"] as? String)
    }

    /// The expression with every dashboard variable set to "all" (`.*`) and Grafana's built-ins filled in.
    private func substitute(_ expression: String, variables names: [String]) throws -> String {
        var text = expression
        for name in names {
            text = text.replacingOccurrences(of: "[[\(name)]]", with: ".*")
            text = text.replacing(try Regex("\\$\\{\(name)(?::[a-z]+)?\\}"), with: ".*")
            text = text.replacing(try Regex("\\$\(name)\\b"), with: ".*")
        }
        for (name, value) in Self.builtInVariables {
            text = text.replacing(try Regex("\\$\(name)\\b"), with: value)
        }
        XCTAssertFalse(text.contains("$"), "unknown variable left in \(expression)")
        return text
    }

    private func rectangles(overlap a: [String: Int], _ b: [String: Int]) -> Bool {
        let (ax, ay, aw, ah) = (a["x"] ?? 0, a["y"] ?? 0, a["w"] ?? 0, a["h"] ?? 0)
        let (bx, by, bw, bh) = (b["x"] ?? 0, b["y"] ?? 0, b["w"] ?? 0, b["h"] ?? 0)
        return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah
    }

    func testDashboardIsAPortableGrafanaDashboardTemplatedByInstanceAndTarget() throws {
        let text = try String(contentsOf: Self.dashboardURL, encoding: .utf8)
        XCTAssertFalse(text.contains("://"), "no external assets or links: the dashboard must work offline")
        let dashboard = try loadDashboard()
        XCTAssertEqual(dashboard["schemaVersion"] as? Int, 39)
        XCTAssertEqual(dashboard["uid"] as? String, "netvigil-overview")
        XCTAssertTrue(dashboard["id"] is NSNull, "exported for import: no database id")

        let variables = variables(of: dashboard)
        XCTAssertEqual(variables.map { $0["name"] as? String }, ["datasource", "instance", "target"])
        let datasource = try XCTUnwrap(variables.first)
        XCTAssertEqual(datasource["type"] as? String, "datasource")
        XCTAssertEqual(datasource["query"] as? String, "prometheus")
        for variable in variables.dropFirst() {
            let name = variable["name"] as? String ?? "?"
            XCTAssertEqual(variable["type"] as? String, "query", name)
            XCTAssertEqual((variable["datasource"] as? [String: Any])?["uid"] as? String, "${datasource}", name)
            XCTAssertTrue(variableQuery(variable)?.hasPrefix("label_values(") == true, name)
            XCTAssertEqual(variable["includeAll"] as? Bool, true, name)
            XCTAssertEqual(variable["multi"] as? Bool, true, name)
            XCTAssertEqual(variable["allValue"] as? String, ".*", name)
        }

        let panels = panels(of: dashboard)
        let ids = panels.compactMap { $0["id"] as? Int }
        XCTAssertEqual(ids.count, panels.count, "every panel has an id")
        XCTAssertEqual(Set(ids).count, ids.count, "panel ids are unique")
        let grids = panels.map { ($0["gridPos"] as? [String: Int]) ?? [:] }
        for (panel, grid) in zip(panels, grids) {
            let title = panel["title"] as? String ?? "?"
            XCTAssertTrue(Self.corePanelTypes.contains(panel["type"] as? String ?? ""), "\(title): \(panel["type"] ?? "no type")")
            XCTAssertTrue((grid["w"] ?? 0) > 0 && (grid["h"] ?? 0) > 0 && (grid["x"] ?? -1) >= 0
                          && (grid["x"] ?? 0) + (grid["w"] ?? 0) <= 24, "\(title): gridPos \(grid)")
            guard panel["type"] as? String != "row" else { continue }
            XCTAssertFalse((panel["description"] as? String ?? "").isEmpty, "\(title) explains itself")
            XCTAssertEqual((panel["datasource"] as? [String: Any])?["uid"] as? String, "${datasource}", title)
            let targets = panel["targets"] as? [[String: Any]] ?? []
            XCTAssertFalse(targets.isEmpty, "\(title) has a query")
            let refIds = targets.compactMap { $0["refId"] as? String }
            XCTAssertEqual(Set(refIds).count, targets.count, "\(title): unique refIds")
            for target in targets {
                XCTAssertEqual((target["datasource"] as? [String: Any])?["uid"] as? String, "${datasource}", title)
            }
        }
        for i in grids.indices {
            for j in grids.indices where j > i {
                XCTAssertFalse(rectangles(overlap: grids[i], grids[j]),
                               "\(panels[i]["title"] ?? "?") overlaps \(panels[j]["title"] ?? "?")")
            }
        }

        var used = Set<String>()
        for query in queries(of: dashboard) {
            let names = PromQLMetricNames.names(in: query.expression)
            used.formUnion(names)
            XCTAssertTrue(query.expression.contains("instance=~\"$instance\""), "\(query.panel): filter by instance: \(query.expression)")
            if names.contains(where: { name in Self.probeMetricPrefixes.contains { name.hasPrefix($0) } }) {
                XCTAssertTrue(query.expression.contains("target=~\"$target\""), "\(query.panel): filter by target: \(query.expression)")
            }
        }
        XCTAssertTrue(Self.requiredMetrics.isSubset(of: used), "not shown: \(Self.requiredMetrics.subtracting(used).sorted())")
    }

    func testMetricNamesAreFoundInExpressions() {
        XCTAssertEqual(PromQLMetricNames.names(in: #"up{job="netvigil"} == 0"#), ["up"])
        XCTAssertEqual(PromQLMetricNames.names(in: "(a_b - time()) / 86400 < 14"), ["a_b"])
        XCTAssertEqual(PromQLMetricNames.names(in: "x == 0 unless on(job, instance, target) y == 1"), ["x", "y"])
        XCTAssertEqual(PromQLMetricNames.names(in: #"sum by (instance, sink) (rate(c_total{i=~"a|b(c)"}[5m] offset 1h))"#), ["c_total"])
        XCTAssertEqual(PromQLMetricNames.names(in: #"label_replace(m, "dst", "$1", "src", "(.*)") * on() group_left(v) n"#), ["m", "n"])
        XCTAssertEqual(PromQLMetricNames.names(in: "sum(a) without (b) and bool c > Inf"), ["a", "c"])
        XCTAssertEqual(PromQLMetricNames.names(in: "1e3 * 0x1f + 2.5"), [])
    }

    // MARK: The scenario

    func testEveryDashboardAndRuleExpressionRunsInARealPrometheusScrapingTheDaemon() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.prometheusBinary) else {
            throw XCTSkip("\(Self.prometheusBinary) missing: install the Debian package prometheus (make test does)")
        }
        directory = try TemporaryDirectory()
        let pin = try makePKI()
        let bogusPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let webPort = ProcessRunner.freePort(), tlsPort = ProcessRunner.freePort(), hookPort = ProcessRunner.freePort()
        let feedPort = ProcessRunner.freePort(), closedPort = ProcessRunner.freePort()
        prometheusPort = ProcessRunner.freePort()

        try FileManager.default.createDirectory(atPath: directory.path("www"), withIntermediateDirectories: true)
        _ = try directory.write("www/index.html", "netvigil\n")
        try start("/usr/bin/python3", ["-m", "http.server", "\(webPort)", "--bind", "127.0.0.1", "--directory", directory.path("www")],
                  log: "web.log")
        try startNginx(port: tlsPort)
        try startWebhookReceiver(port: hookPort)

        let token = try directory.write("token", "grafana-test-token\n")
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort), token_file: \(token) }
            reachability: { targets: [127.0.0.1] }
            targets:
              - { name: web, url: "http://127.0.0.1:\(webPort)/", interval: 1s, timeout: 3s }
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                tls: { pinning: publicKey, pins: [\(pin)], ca: [\(directory.path("ca.pem"))] }
              - name: intercepted
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                tls: { pinning: publicKey, pins: [\(bogusPin)], ca: [\(directory.path("ca.pem"))] }
              - { name: closed, url: "http://127.0.0.1:\(closedPort)/", interval: 1s, timeout: 2s }
            alerts:
              sinks: [{ name: hook, webhook: { url: "http://127.0.0.1:\(hookPort)/hook", timeout: 2s } }]
              retry: { initial: 200ms, max: 1s }
              rules:
                target_down: { threshold: 1 }
            """)
        try start(ProcessRunner.binary.path, ["run", "--config", config], log: "daemon.log")

        let prometheusConfig = try directory.write("prometheus.yml", """
            global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }
            rule_files: [\(Self.rulesURL.path)]
            scrape_configs:
              - job_name: netvigil
                authorization: { type: Bearer, credentials_file: \(token) }
                static_configs: [{ targets: ["127.0.0.1:\(feedPort)"] }]
            """)
        try start(Self.prometheusBinary, ["--config.file=\(prometheusConfig)", "--storage.tsdb.path=\(directory.path("tsdb"))",
                                          "--web.listen-address=127.0.0.1:\(prometheusPort)"], log: "prometheus.log")
        try waitUntil("Prometheus ready", timeout: 30) {
            (try ProcessRunner.curl("http://127.0.0.1:\(self.prometheusPort)/-/ready")).0 == 200
        }
        try waitUntil("up{job=\"netvigil\"} == 1", timeout: 30) {
            try self.instantQuery("up{job=\"netvigil\"} == 1").result.count == 1
        }

        // What the daemon serves, straight from its /metrics.
        let (metricsStatus, exposition) = try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/metrics",
                                                                 headers: ["Authorization: Bearer grafana-test-token"])
        XCTAssertEqual(metricsStatus, 200, exposition)

        // Every expression to run: dashboard panels, dashboard variables, rules (as Prometheus parsed them).
        let dashboard = try loadDashboard()
        let variableNames = variables(of: dashboard).compactMap { $0["name"] as? String }
        let panelQueries = try queries(of: dashboard).map {
            Query(panel: $0.panel, refId: $0.refId, expression: try substitute($0.expression, variables: variableNames))
        }
        let labelValuesQueries = try variables(of: dashboard).filter { $0["type"] as? String == "query" }.map { variable in
            let name = variable["name"] as? String ?? "?"
            let query = try XCTUnwrap(variableQuery(variable), name)
            let match = try XCTUnwrap(query.wholeMatch(of: /label_values\((?:(.+),\s*)?([A-Za-z_][A-Za-z0-9_]*)\)/),
                                      "\(name): \(query) is not label_values(selector, label)")
            return (variable: name, selector: try substitute(String(match.output.1 ?? ""), variables: variableNames),
                    label: String(match.output.2))
        }
        let groups = try prometheus("/api/v1/rules")["data"].flatMap { ($0 as? [String: Any])?["groups"] as? [[String: Any]] } ?? []
        let rules = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
        let ruleQueries = rules.map {
            Query(panel: "rule \($0["name"] as? String ?? "?")", refId: "expr", expression: $0["query"] as? String ?? "")
        }
        let rulesText = try String(contentsOf: Self.rulesURL, encoding: .utf8)
        let exprLines = rulesText.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("expr:") }
        XCTAssertEqual(ruleQueries.count, exprLines.count, "Prometheus loaded every rule of \(Self.rulesURL.lastPathComponent)")
        XCTAssertFalse(ruleQueries.isEmpty)

        // Metric names: each expression names at least one, and each is served by the daemon (or is Prometheus's `up`).
        let emitted = Set(exposition.split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix("#"), let name = line.split(separator: "{").first?.split(separator: " ").first else { return nil }
            return String(name)
        }).union(["up"])
        var referenced = Set<String>()
        let allQueries = panelQueries + ruleQueries
            + labelValuesQueries.map { Query(panel: "variable \($0.variable)", refId: "query", expression: $0.selector) }
        for query in allQueries {
            let names = PromQLMetricNames.names(in: query.expression)
            XCTAssertFalse(names.isEmpty, "\(query.panel) \(query.refId): no metric in \(query.expression)")
            for name in names.subtracting(emitted) {
                XCTFail("\(query.panel) \(query.refId): \(name) is not emitted by the daemon (\(query.expression))")
            }
            referenced.formUnion(names)
        }

        // Wait until Prometheus holds every referenced series and a few samples of each (rate() needs two).
        let served = referenced.intersection(emitted)
        try waitUntil("every referenced metric in Prometheus", timeout: 30) {
            served.isSubset(of: try self.metricNamesInPrometheus())
        }
        try waitUntil("three samples of every referenced series", timeout: 30) {
            try served.allSatisfy { !(try self.instantQuery("min(count_over_time(\($0)[15s])) >= 3").result.isEmpty) }
        }

        // Dashboard panels: no error, and data (every panel has something to show for this daemon).
        var results: [String: [[String: Any]]] = [:]
        for query in panelQueries {
            let (error, result) = try instantQuery(query.expression)
            XCTAssertNil(error, "\(query.panel) \(query.refId): \(query.expression)")
            XCTAssertFalse(error == nil && result.isEmpty, "\(query.panel) \(query.refId): no data for \(query.expression)")
            results["\(query.panel)/\(query.refId)"] = result
        }
        // Dashboard variables, as Grafana runs label_values: /api/v1/label/<label>/values?match[]=<selector>.
        var variableValues: [String: Set<String>] = [:]
        for query in labelValuesQueries {
            let parameters = query.selector.isEmpty ? [] : [("match[]", query.selector)]
            let envelope = try prometheus("/api/v1/label/\(query.label)/values", parameters)
            XCTAssertEqual(envelope["status"] as? String, "success", "variable \(query.variable): \(envelope)")
            variableValues[query.variable] = Set(envelope["data"] as? [String] ?? [])
        }
        XCTAssertEqual(variableValues["instance"], ["127.0.0.1:\(feedPort)"])
        XCTAssertEqual(variableValues["target"], ["web", "api", "intercepted", "closed"])
        // Rule expressions: no error (most are empty while nothing fires).
        for query in ruleQueries {
            let (error, _) = try instantQuery(query.expression)
            XCTAssertNil(error, "\(query.panel): \(query.expression)")
        }
        // And Prometheus's own evaluation of the loaded rules is healthy.
        try waitUntil("every rule evaluated", timeout: 15) {
            let groups = try self.prometheus("/api/v1/rules")["data"].flatMap { ($0 as? [String: Any])?["groups"] as? [[String: Any]] } ?? []
            return groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }.allSatisfy {
                !($0["lastEvaluation"] as? String ?? "0001").hasPrefix("0001")
            }
        }
        for rule in (try prometheus("/api/v1/rules")["data"] as? [String: Any])?["groups"] as? [[String: Any]] ?? [] {
            for rule in rule["rules"] as? [[String: Any]] ?? [] {
                XCTAssertEqual(rule["health"] as? String, "ok", "\(rule["name"] ?? "?"): \(rule["lastError"] ?? "")")
            }
        }

        // The panels show what happened: probe results and pin verdicts per target.
        func values(_ key: String) -> [String: String] {
            Dictionary((results[key] ?? []).compactMap { series in
                guard let target = (series["metric"] as? [String: String])?["target"],
                      let value = (series["value"] as? [Any])?.last as? String else { return nil }
                return (target, value)
            }, uniquingKeysWith: { first, _ in first })
        }
        XCTAssertEqual(values("Probe result/A")["web"], "1")
        XCTAssertEqual(values("Probe result/A")["api"], "1")
        XCTAssertEqual(values("Probe result/A")["closed"], "0")
        XCTAssertEqual(values("Pin and trust state/A"), ["api": "1", "intercepted": "0"])
        // AFSecurityPolicy semantics: a pin mismatch makes the server untrusted (verdict untrusted:publicKeyPinMismatch).
        XCTAssertEqual(values("Pin and trust state/B"), ["api": "1", "intercepted": "0"])

        print("GrafanaDashboardTests: \(panelQueries.count) dashboard expressions, \(labelValuesQueries.count) variable queries "
              + "and \(ruleQueries.count) rule expressions checked against Prometheus; metrics used: \(referenced.sorted())")
    }
}
