import Foundation
import NetVigilTestSupport
import XCTest

/// The fleet view end to end: three real agents (`netvigil run`) probe a real nginx and ship to a real PostgreSQL 15;
/// one of them (charlie, site nyc1) runs in a network namespace whose only path to nginx goes over a veth link through
/// mitmproxy in an edge namespace (`InterceptedSite`), with no proxy in its configuration. Two real hubs
/// (`netvigil fleet serve`) evaluate the fleet and deliver its alerts to a webhook receiver and a real Alertmanager.
final class FleetHubTests: XCTestCase {
    private var bed: FleetTestBed!
    private var origin: NginxProcess?
    private var hubs: [HubUnderTest] = []

    override func tearDown() {
        for hub in hubs { hub.stop() }
        origin?.stop()
        bed?.tearDown()
    }

    /// One scenario, in the order an operator would meet it:
    /// 1. The path of the agent in site nyc1 is intercepted (mitmproxy in reverse mode on the address it connects
    ///    to): the hubs report `path_interception` naming nyc1 and mitmproxy as issuer; the endpoint is `partial`
    ///    (one agent's failure), and nobody is paged for it.
    /// 2. Outages of nyc1 alone. The edge's middlebox stops (beyond nyc1's link, so its agent cannot tell): its
    ///    connections are refused, the endpoint is `partial`, nobody is paged. Then nyc1's link goes down: its agent
    ///    knows (its path is NotReachable), keeps shipping its results as `skipped`, which the consensus leaves aside;
    ///    the endpoint is up from the others and nobody is paged.
    /// 3. nginx stops: every agent that can reach it sees the endpoint fail, and `endpoint_down` is raised once.
    /// 4. An agent is killed: `agent_silent` within `silent_after`.
    /// Two hubs run the whole time: each notice reaches the webhook once and Alertmanager holds the alerts.
    func testInterceptionOutageDownAndSilenceEachDeliveredOnceFromTwoHubs() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "Origin CA", leaves: [("web", "/CN=localhost")],
                                  subjectAltName: "DNS:localhost,IP:127.0.0.1")
        let originPort = ProcessRunner.freePort()
        // The origin also listens on a unix socket: the edge namespace reaches it there.
        let originSocket = directory.path("origin.sock")
        origin = try NginxProcess(prefix: directory.path("nginx"), servers: """
            server { listen 127.0.0.1:\(originPort) ssl; listen unix:\(originSocket) ssl; server_name localhost;
                     ssl_certificate \(directory.path("web.pem")); ssl_certificate_key \(directory.path("web.key"));
                     location / { default_type text/plain; return 200 'origin'; } }
            """, ports: [originPort])
        let pin = try pki.pin(of: "web")
        // One URL for every agent (the hub keys endpoints by it); nyc1 connects to the edge's address instead.
        let endpoint = "https://localhost:\(originPort)/"
        let nyc1 = try InterceptedSite(for: self, originPort: originPort, originSocket: originSocket,
                                       originCA: directory.path("ca.pem"), postgresPort: bed.postgres.port,
                                       postgresSocket: bed.postgres.socketPath)

        // The first delivery fails (HTTP 500): retried from the outbox.
        let webhook = try WebhookReceiver(directory: directory, statuses: [500, 200])
        let alertmanager = try AlertmanagerProcess(directory: directory) { receiver in
            """
            route: { receiver: hook, group_by: [alertname, endpoint], group_wait: 1s, group_interval: 1s, repeat_interval: 1h }
            receivers: [{ name: hook, webhook_configs: [{ url: "\(receiver)/hook", send_resolved: true }] }]
            """
        }

        // Three agents in three sites. nyc1's agent runs in its namespace: no proxy configured, its path to the edge's
        // address is intercepted; it ships over its own loopback (the bridge to PostgreSQL's unix socket: no TLS).
        let sites = ["alpha": "ams1", "bravo": "fra1", "charlie": "nyc1"]
        for (name, site) in sites.sorted(by: { $0.key < $1.key }) {
            let password = try bed.addAgent(name)
            let intercepted = site == "nyc1"
            let fleet = intercepted
                ? bed.fleetBlock(name, passwordFile: password, port: bed.postgres.port, host: "127.0.0.1", tls: "{ mode: disable }")
                : bed.fleetBlock(name, passwordFile: password)
            let connectTo = intercepted ? ", connect_to: [\(InterceptedSite.edgeAddress)]" : ""
            try bed.startAgent(name, fleet: fleet + "\nlabels: { site: \(site) }", targetList: """
                targets:
                  - { name: api-\(name), url: "\(endpoint)", interval: 1s, timeout: 3s\(connectTo),
                      tls: { pinning: publicKey, pins: ["\(pin)"], ca: [\(directory.path("ca.pem"))] } }
                """, namespace: intercepted ? nyc1.site.name : nil)
        }

        let hubConfig = try bed.hubConfiguration(consensus: "down_when: 2 of 3, silent_after: 6s", sinks: [
            "{ name: hook, webhook: { url: \"\(webhook.url)\" } }",
            "{ name: am, alertmanager: { url: \"\(alertmanager.url)\" } }",
        ])
        for _ in 0..<2 {
            let hub = try HubUnderTest()
            try hub.start(config: hubConfig)
            hubs.append(hub)
        }
        let hub = hubs[0]

        // 1. Interception on one site's path.
        try hub.waitUntil("the hub sees nyc1 intercepted", timeout: 60, context: { nyc1.logs }) {
            let keys = try hub.endpoint(endpoint)?["keys"] as? [[String: Any]] ?? []
            return keys.contains { $0["interception"] as? Bool == true }
        }
        let intercepted = try XCTUnwrap(try hub.endpoint(endpoint))
        XCTAssertEqual(intercepted["verdict"] as? String, "partial", "\(intercepted)")
        XCTAssertEqual(intercepted["down"] as? [String], ["charlie"])
        let keys = try XCTUnwrap(intercepted["keys"] as? [[String: Any]])
        XCTAssertEqual(keys.count, 2, "\(keys)")
        XCTAssertEqual(keys[0]["spki"] as? String, pin, "the majority sees the origin's key")
        XCTAssertEqual(keys[0]["pins"] as? String, "matched")
        XCTAssertEqual(keys[0]["sites"] as? [String], ["ams1", "fra1"])
        XCTAssertEqual(keys[1]["sites"] as? [String], ["nyc1"])
        // mitmproxy's CA is not trusted: the chain fails before the pins are looked at.
        XCTAssertEqual(keys[1]["pins"] as? String, "not_evaluated")
        XCTAssertTrue((keys[1]["issuers"] as? [String])?.contains { $0.contains("mitmproxy") } ?? false, "\(keys[1])")

        // The documents against their schemas (deploy/schemas).
        let (statusCode, statusText) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/status")
        XCTAssertEqual(statusCode, 200)
        try SchemaValidator.assertValid(text: statusText, schema: "fleet-status")
        let encoded = endpoint.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? endpoint
        let (detailCode, detailText) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/endpoint?endpoint=\(encoded)")
        XCTAssertEqual(detailCode, 200, detailText)
        try SchemaValidator.assertValid(text: detailText, schema: "fleet-endpoint")
        let detail = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(detailText.utf8)) as? [String: Any])
        let results = try XCTUnwrap(detail["results"] as? [[String: Any]])
        XCTAssertEqual(results.first?["agent"] as? String, "charlie", "worst first: \(results)")
        let uptime = try XCTUnwrap(detail["uptime"] as? [[String: Any]])
        XCTAssertEqual(uptime.map { $0["site"] as? String }, ["ams1", "fra1", "nyc1"])
        XCTAssertEqual((uptime.last?["day"] as? [String: Any])?["ok"] as? Int, 0, "nyc1 never got through: \(uptime)")
        XCTAssertGreaterThan((uptime.first?["day"] as? [String: Any])?["ok"] as? Int ?? 0, 0, "\(uptime)")

        // The export: every agent's rows in the agent export's shape, filtered by agent and endpoint.
        let (exportCode, exportText) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/export?since=-10m")
        XCTAssertEqual(exportCode, 200, exportText)
        try SchemaValidator.assertValid(text: exportText, ndjson: true, schema: "fleet-export")
        let lines = exportText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(Set(lines.dropFirst().compactMap { $0["agent"] as? String }), ["alpha", "bravo", "charlie"])
        let charlieLine = try XCTUnwrap(lines.first { $0["agent"] as? String == "charlie" })
        XCTAssertTrue((charlieLine["served_issuer"] as? String)?.contains("mitmproxy") ?? false, "\(charlieLine)")
        XCTAssertEqual((charlieLine["served_chain_sha256"] as? [String])?.isEmpty, false, "\(charlieLine)")
        let (_, oneAgent) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/export?since=-10m&agent=charlie&endpoint=\(encoded)&format=json")
        try SchemaValidator.assertValid(text: oneAgent, schema: "fleet-export")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(oneAgent.utf8)) as? [String: Any])
        let probes = try XCTUnwrap(document["probes"] as? [[String: Any]])
        XCTAssertFalse(probes.isEmpty)
        XCTAssertTrue(probes.allSatisfy { $0["agent"] as? String == "charlie" })
        let seqs = probes.compactMap { $0["seq"] as? Int }
        XCTAssertEqual(seqs, seqs.sorted(), "one agent's rows in its order")
        let (badCode, bad) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/export?since=-40d")
        XCTAssertEqual(badCode, 400)
        XCTAssertTrue(bad.contains("at most 31 days"), bad)

        try hub.waitUntil("the webhook gets path_interception", timeout: 30) {
            webhook.requests.contains { $0.json?["kind"] as? String == "path_interception" }
        }
        let notice = try XCTUnwrap(webhook.requests.first { $0.json?["kind"] as? String == "path_interception" }?.json)
        XCTAssertEqual(notice["sites"] as? [String], ["nyc1"])
        XCTAssertEqual(notice["url"] as? String, endpoint)
        XCTAssertTrue((notice["issuer"] as? String)?.contains("mitmproxy") ?? false, "\(notice)")
        XCTAssertTrue((notice["message"] as? String)?.contains("site nyc1") ?? false, "\(notice)")
        XCTAssertTrue(try alertmanager.waitForNotifications { notifications in
            notifications.contains { ($0.body["alerts"] as? [[String: Any]])?.contains {
                ($0["labels"] as? [String: String])?["alertname"] == "NetvigilFleetPathInterception" } ?? false }
        }, "Alertmanager notified of the interception: \(alertmanager.log.suffix(1500))")
        // One agent's failure pages nobody.
        Thread.sleep(forTimeInterval: 3)
        XCTAssertFalse(webhook.requests.contains { $0.json?["kind"] as? String == "endpoint_down" },
                       "\(webhook.requests.map(\.body))")

        // 2. An outage beyond nyc1's own link, which its agent cannot see: the edge's middlebox stops, so connections
        // to it are refused. charlie alone fails: the endpoint is `partial`, and nobody is paged.
        nyc1.mitmproxy.stop()
        // Connections cut while mitmproxy stops may fail otherwise first; then every connection is refused.
        var refusedDetail: [String: Any] = [:]
        try hub.waitUntil("charlie's connections are refused", timeout: 30) {
            let (_, text) = try ProcessRunner.curl("\(hub.feed)/v1/fleet/endpoint?endpoint=\(encoded)")
            refusedDetail = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
            let charlie = (refusedDetail["results"] as? [[String: Any]])?.first { $0["agent"] as? String == "charlie" }
            // charlie alone fails and is served no key: partial, with the majority's key group alone (the status may
            // be a second older than the results).
            let status = refusedDetail["status"] as? [String: Any]
            return charlie?["error_kind"] as? String == "connectRefused" && status?["verdict"] as? String == "partial"
                && (status?["keys"] as? [Any])?.count == 1
        }
        let beyondTheLink = try XCTUnwrap(refusedDetail["status"] as? [String: Any], "\(refusedDetail)")
        XCTAssertEqual(beyondTheLink["down"] as? [String], ["charlie"], "\(beyondTheLink)")
        XCTAssertEqual(beyondTheLink["up"] as? [String], ["alpha", "bravo"], "\(beyondTheLink)")
        Thread.sleep(forTimeInterval: 3)
        XCTAssertFalse(webhook.requests.contains { $0.json?["kind"] as? String == "endpoint_down" },
                       "\(webhook.requests.map(\.body))")

        // 2b. An outage of nyc1 alone that its agent does see: its link goes down. Its agent sees its path NotReachable
        // and records its probes as skipped (the machine is offline, not the endpoint); it keeps shipping through its
        // loopback.
        let shippedBefore = bed.centralCount("charlie")
        try nyc1.setUplink(up: false)
        try hub.waitUntil("charlie's latest result is skipped", timeout: 30) {
            try hub.endpoint(endpoint)?["skipped"] as? [String] == ["charlie"]
        }
        try hub.waitUntil("charlie keeps shipping", timeout: 30) { self.bed.centralCount("charlie") >= shippedBefore + 5 }
        let latest = try bed.postgres.rows("""
            SELECT outcome, reachability_status, error_message FROM probe_results WHERE agent = 'charlie' ORDER BY seq DESC LIMIT 1
            """)
        XCTAssertEqual(latest.first?[0], "skipped", "\(latest)")
        XCTAssertEqual(latest.first?[1], "NotReachable", "\(latest)")
        // Skipped results are left aside: alpha and bravo are up, so the endpoint is up, and no page goes out.
        let outage = try XCTUnwrap(try hub.endpoint(endpoint))
        XCTAssertEqual(outage["verdict"] as? String, "up", "\(outage)")
        XCTAssertEqual(outage["up"] as? [String], ["alpha", "bravo"], "\(outage)")
        XCTAssertEqual(outage["down"] as? [String], [], "\(outage)")
        let nyc1Agent = (try hub.status()["agents"] as? [[String: Any]])?.first { $0["agent"] as? String == "charlie" }
        XCTAssertEqual(nyc1Agent?["state"] as? String, "ok", "charlie still reports: \(nyc1Agent ?? [:])")
        Thread.sleep(forTimeInterval: 3)
        XCTAssertFalse(webhook.requests.contains { $0.json?["kind"] as? String == "endpoint_down" },
                       "\(webhook.requests.map(\.body))")

        // 3. The origin stops: down from the 2 agents that can still reach it (nyc1's results are skipped).
        origin?.stop()
        try hub.waitUntil("the endpoint is down", timeout: 60) { try hub.endpoint(endpoint)?["verdict"] as? String == "down" }
        try hub.waitUntil("the webhook gets endpoint_down", timeout: 30) {
            webhook.requests.contains { $0.json?["kind"] as? String == "endpoint_down" && $0.json?["state"] as? String == "firing" }
        }
        let down = try XCTUnwrap(webhook.requests.first { $0.json?["kind"] as? String == "endpoint_down" }?.json)
        XCTAssertEqual(down["sites"] as? [String], ["ams1", "fra1"], "\(down)")
        XCTAssertEqual(down["severity"] as? String, "page")

        // 4. An agent dies: silent after 6 s.
        _ = bed.agents["bravo"]?.stop(signal: SIGKILL)
        try hub.waitUntil("bravo is reported silent", timeout: 30) {
            webhook.requests.contains { $0.json?["kind"] as? String == "agent_silent" && $0.json?["target"] as? String == "bravo" }
        }
        // The status may be up to a second older than the evaluation that sent the notice.
        try hub.waitUntil("the status shows bravo silent", timeout: 5) {
            (try hub.status()["agents"] as? [[String: Any]])?.first?["state"] as? String == "silent"
        }
        let agents = try XCTUnwrap(try hub.status()["agents"] as? [[String: Any]])
        XCTAssertEqual(agents.first?["agent"] as? String, "bravo", "worst first: \(agents)")
        XCTAssertEqual(agents.first?["state"] as? String, "silent")

        // Each notice once, whichever hub evaluated or delivered it.
        Thread.sleep(forTimeInterval: 3)
        let accepted = webhook.requests.filter { $0.status == 200 }
        let keysSeen = accepted.compactMap { $0.header("Idempotency-Key") }
        XCTAssertEqual(keysSeen.count, Set(keysSeen).count, "a notice reached the webhook twice: \(keysSeen)")
        let refused = try XCTUnwrap(webhook.requests.first { $0.status == 500 }?.header("Idempotency-Key"))
        XCTAssertTrue(keysSeen.contains(refused), "the refused notice was retried and delivered")
        let firing = accepted.compactMap(\.json).filter { $0["state"] as? String == "firing" }
        for kind in ["path_interception", "endpoint_down", "agent_silent"] {
            XCTAssertEqual(firing.filter { $0["kind"] as? String == kind }.count, 1, "\(kind) fired once: \(firing)")
        }
        let delivered = try bed.postgres.rows("SELECT count(*), count(DISTINCT idempotency_key) FROM fleet_alert_outbox WHERE state = 'delivered'")
        XCTAssertEqual(delivered.first?[0], delivered.first?[1])
        // Both hubs evaluated; both answered.
        for hub in hubs {
            let (code, metrics) = try ProcessRunner.curl("\(hub.feed)/metrics")
            XCTAssertEqual(code, 200)
            XCTAssertTrue(metrics.contains("netvigil_fleet_agents{state=\"silent\"} 1"), metrics)
        }
        // SIGTERM stops a hub cleanly and at once.
        let stopping = Date()
        hubs[1].stop()
        XCTAssertEqual(hubs[1].process?.terminationStatus, 0, hubs[1].log.suffix(1_000).description)
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 5)
        let amAlerts = try alertmanager.alerts().compactMap { $0["labels"] as? [String: String] }
        XCTAssertTrue(amAlerts.contains { $0["alertname"] == "NetvigilFleetEndpointDown" && $0["endpoint"] == endpoint }, "\(amAlerts)")
        XCTAssertTrue(amAlerts.contains { $0["alertname"] == "NetvigilFleetAgentSilent" && $0["agent"] == "bravo" }, "\(amAlerts)")
    }
}
