import Foundation
import NetVigilTestSupport
import XCTest

/// At least once across a hub crash (issue #54): a notice whose hub dies while delivering it is delivered by another
/// hub. Real PostgreSQL, a real agent, two real `netvigil fleet serve` processes and a webhook receiver that holds the
/// first request open.
final class FleetHubCrashTests: XCTestCase {
    private var bed: FleetTestBed!
    private var hubs: [HubUnderTest] = []

    override func tearDown() {
        for hub in hubs { hub.stop() }
        bed?.tearDown()
    }

    /// Hub A takes the `endpoint_down` notice from the outbox and posts it to a webhook that never answers; hub B,
    /// running meanwhile, does not take the row A holds. A is killed with SIGKILL mid-delivery: B delivers the notice
    /// with the same Idempotency-Key, and the outbox row ends `delivered`.
    func testANoticeWhoseHubDiesMidDeliveryIsDeliveredByTheOtherHub() throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let directory = try TemporaryDirectory()
        // The first request is held open; the next ones are answered 200.
        let webhook = try WebhookReceiver(directory: directory, statuses: [0, 200])
        // One agent probing a port nobody listens on: the endpoint is down from 1 of 1, one endpoint_down notice.
        let password = try bed.addAgent("alpha")
        try bed.startAgent("alpha", fleet: bed.fleetBlock("alpha", passwordFile: password) + "\nlabels: { site: ams1 }", targets: 1)

        let hubPassword = bed.scratch.path("hub.pass")
        let added = try bed.fleet(["add-hub", "hub", "--password-file", hubPassword])
        XCTAssertEqual(added.status, 0, added.stderr)
        // The webhook's timeout is long: hub A is still waiting for the answer when it is killed.
        let hubConfig = """
            fleet:
              postgres: postgres://hub@localhost:\(bed.postgres.port)/\(bed.postgres.database)
              password_file: \(hubPassword)
              tls: { mode: verify-full, ca: \(bed.pki.directory.path("ca.pem")) }
              evaluate_every: 1s
            alerts:
              retry: { initial: 100ms, max: 1s }
              sinks:
                - { name: hook, webhook: { url: "\(webhook.url)", timeout: 120s } }
            """
        let hubA = try HubUnderTest()
        hubs.append(hubA)
        try hubA.start(config: hubConfig)
        try hubA.waitUntil("hub A posts endpoint_down to the webhook", timeout: 60) { webhook.requests.count == 1 }
        let held = try XCTUnwrap(webhook.requests.first)
        XCTAssertEqual(held.json?["kind"] as? String, "endpoint_down", held.body)
        XCTAssertEqual(held.json?["state"] as? String, "firing", held.body)
        let key = try XCTUnwrap(held.header("Idempotency-Key"), "\(held.headers)")
        let row = "SELECT state, attempts FROM fleet_alert_outbox WHERE idempotency_key = '\(key)'"
        XCTAssertEqual(try bed.postgres.rows(row).first, ["pending", "0"], "held by hub A, not yet marked")

        // Hub B runs (its first evaluation done) while A holds the row: it does not take it.
        let hubB = try HubUnderTest()
        hubs.append(hubB)
        try hubB.start(config: hubConfig)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(webhook.requests.count, 1, "hub B took a row hub A holds: \(webhook.requests.map(\.body))")

        // Hub A dies mid-delivery.
        let killed = Date()
        hubA.stop(signal: SIGKILL)
        try hubB.waitUntil("hub B delivers the notice", timeout: 60) {
            webhook.requests.contains { $0.status == 200 && $0.header("Idempotency-Key") == key }
        }
        let redelivered = Date().timeIntervalSince(killed)
        try hubB.waitUntil("the outbox row is delivered", timeout: 10) { try self.bed.postgres.rows(row).first?.first == "delivered" }
        XCTAssertEqual(try bed.postgres.rows(row).first, ["delivered", "1"])
        XCTAssertLessThan(redelivered, 10, "hub B delivered \(redelivered) s after hub A died")
        XCTAssertTrue(hubB.log.contains(key), "hub B logs the delivery: \(hubB.log.suffix(2_000))")

        // At least once, and once accepted: the same notice, no third delivery.
        Thread.sleep(forTimeInterval: 3)
        let same = webhook.requests.filter { $0.header("Idempotency-Key") == key }
        XCTAssertEqual(same.map(\.status), [0, 200], "\(webhook.requests.map(\.body))")
        XCTAssertEqual(same.last?.body, held.body, "the same notice")
        XCTAssertEqual(try bed.postgres.rows("SELECT count(*) FROM fleet_alert_outbox").first, ["1"])
    }
}
