import Foundation
import NetVigilTestSupport
import XCTest

/// At least once across a hub failure (issue #54): a notice whose hub dies, or freezes, while delivering it is
/// delivered by another hub. Real PostgreSQL, a real agent, two real `netvigil fleet serve` processes and a webhook
/// receiver that holds the first request open.
final class FleetHubCrashTests: XCTestCase {
    private var bed: FleetTestBed!
    private var hubs: [HubUnderTest] = []

    override func tearDown() {
        // SIGKILL: a frozen (SIGSTOP) hub would never act on SIGTERM.
        for hub in hubs { hub.stop(signal: SIGKILL) }
        bed?.tearDown()
    }

    /// Hub A is killed with SIGKILL mid-delivery: PostgreSQL sees its connection close, rolls its transaction back,
    /// and hub B delivers the notice at once.
    func testANoticeWhoseHubDiesMidDeliveryIsDeliveredByTheOtherHub() throws {
        try assertDeliveredByHubB(webhookTimeout: "120s", within: 10) { hubA in hubA.stop(signal: SIGKILL) }
    }

    /// Hub A freezes mid-delivery (SIGSTOP: a hung process, a paused VM; its connection stays open, as one to a host
    /// that dropped off the network does until TCP gives up): its row is released once the delivery transaction has
    /// been idle longer than the longest sink timeout allows, and hub B delivers the notice.
    func testANoticeWhoseHubFreezesMidDeliveryIsDeliveredByTheOtherHub() throws {
        try assertDeliveredByHubB(webhookTimeout: "3s", within: 30) { hubA in
            if let process = hubA.process { kill(process.processIdentifier, SIGSTOP) }
        }
    }

    /// Hub A takes the `endpoint_down` notice from the outbox and posts it to a webhook that never answers; hub B,
    /// running meanwhile, does not take the row A holds. Then `fail` happens to A: B delivers the notice within
    /// `within` seconds with the same Idempotency-Key and body, and the outbox row ends `delivered`, sent to the
    /// webhook twice (A's held attempt, B's) and accepted once.
    private func assertDeliveredByHubB(webhookTimeout: String, within: TimeInterval, fail: (HubUnderTest) -> Void,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        bed = try FleetTestBed()
        try bed.migrate()
        let directory = try TemporaryDirectory()
        // The first request is held open; the next ones are answered 200.
        let webhook = try WebhookReceiver(directory: directory, statuses: [0, 200])
        // One agent probing a port nobody listens on: the endpoint is down from 1 of 1, one endpoint_down notice.
        let password = try bed.addAgent("alpha")
        try bed.startAgent("alpha", fleet: bed.fleetBlock("alpha", passwordFile: password) + "\nlabels: { site: ams1 }", targets: 1)

        let hubConfig = try bed.hubConfiguration(
            sinks: ["{ name: hook, webhook: { url: \"\(webhook.url)\", timeout: \(webhookTimeout) } }"], file: file, line: line)
        let hubA = try HubUnderTest()
        hubs.append(hubA)
        try hubA.start(config: hubConfig)
        try hubA.waitUntil("hub A posts endpoint_down to the webhook", timeout: 60) { webhook.requests.count == 1 }
        let held = try XCTUnwrap(webhook.requests.first)
        XCTAssertEqual(held.json?["kind"] as? String, "endpoint_down", held.body, file: file, line: line)
        XCTAssertEqual(held.json?["state"] as? String, "firing", held.body, file: file, line: line)
        let key = try XCTUnwrap(held.header("Idempotency-Key"), "\(held.headers)")
        let row = "SELECT state, attempts FROM fleet_alert_outbox WHERE idempotency_key = '\(key)'"
        XCTAssertEqual(try bed.postgres.rows(row).first, ["pending", "0"], "held by hub A, not yet marked", file: file, line: line)

        // Hub B runs (its first evaluation done) while A holds the row: it does not take it.
        let hubB = try HubUnderTest()
        hubs.append(hubB)
        try hubB.start(config: hubConfig)
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(webhook.requests.count, 1, "hub B took a row hub A holds: \(webhook.requests.map(\.body))", file: file, line: line)

        let failed = Date()
        fail(hubA)
        try hubB.waitUntil("hub B delivers the notice", timeout: within, file: file, line: line) {
            webhook.requests.contains { $0.status == 200 && $0.header("Idempotency-Key") == key }
        }
        let redelivered = Date().timeIntervalSince(failed)
        try hubB.waitUntil("the outbox row is delivered", timeout: 10, file: file, line: line) {
            try self.bed.postgres.rows(row).first?.first == "delivered"
        }
        XCTAssertEqual(try bed.postgres.rows(row).first, ["delivered", "1"], file: file, line: line)
        XCTAssertTrue(hubB.log.contains(key), "hub B logs the delivery: \(hubB.log.suffix(2_000))", file: file, line: line)
        print("hub B delivered the notice \(String(format: "%.1f", redelivered)) s after hub A failed")

        // At least once, and accepted once: the same notice, no third delivery.
        Thread.sleep(forTimeInterval: 2)
        let same = webhook.requests.filter { $0.header("Idempotency-Key") == key }
        XCTAssertEqual(same.map(\.status), [0, 200], "\(webhook.requests.map(\.body))", file: file, line: line)
        XCTAssertEqual(same.last?.body, held.body, "the same notice", file: file, line: line)
        XCTAssertEqual(try bed.postgres.rows("SELECT count(*) FROM fleet_alert_outbox").first, ["1"], file: file, line: line)
    }
}
