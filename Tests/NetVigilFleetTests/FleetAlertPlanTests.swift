import NetVigilStore
import XCTest
@testable import NetVigilFleet

/// Which notices an evaluation writes: a new condition fires once per sink, a gone one resolves once, events end
/// by themselves, Alertmanager sinks get firing alerts again, and idempotency keys are stable.
final class FleetAlertPlanTests: XCTestCase {
    private let start = Timestamp(milliseconds: 1_800_000_000_000)
    private let down = FleetCondition(kind: .endpointDown, subject: "https://api.example.net/", message: "down from 2 of 3",
                                      sites: ["ams1", "fra1"], agents: ["a1", "b1"])

    private func stored(from plan: FleetAlertPlan) -> [FleetAlertPlan.StoredAlert] { plan.fire + plan.resolve }

    func testANewConditionFiresOncePerSinkAndThenStaysQuiet() throws {
        let first = FleetAlertPlan(stored: [], conditions: [down], now: start, sinks: ["hook", "pager"], resendSinks: [], hub: "hub1")
        XCTAssertEqual(first.fire.map(\.key), [down.key])
        XCTAssertEqual(first.notices.map(\.sink), ["hook", "pager"])
        let payload = try XCTUnwrap(first.notices.first?.payload)
        XCTAssertEqual(payload.kind, "endpoint_down")
        XCTAssertEqual(payload.state, .firing)
        XCTAssertEqual(payload.target, "https://api.example.net/")
        XCTAssertEqual(payload.url, "https://api.example.net/")
        XCTAssertEqual(payload.sites, ["ams1", "fra1"])
        XCTAssertEqual(payload.hub, "hub1")
        XCTAssertNotEqual(first.notices[0].payload.idempotencyKey, first.notices[1].payload.idempotencyKey)

        let again = FleetAlertPlan(stored: stored(from: first), conditions: [down], now: start.adding(.seconds(10)),
                                   sinks: ["hook", "pager"], resendSinks: [], hub: "hub2")
        XCTAssertTrue(again.isEmpty, "still firing: nothing new")

        // A second hub that evaluates the same start writes the same keys: the outbox's unique key keeps one.
        let twin = FleetAlertPlan(stored: [], conditions: [down], now: start, sinks: ["hook", "pager"], resendSinks: [], hub: "hub2")
        XCTAssertEqual(twin.notices.map(\.payload.idempotencyKey), first.notices.map(\.payload.idempotencyKey))
    }

    func testAGoneConditionResolvesOnceAndCanFireAgainWithNewKeys() throws {
        let first = FleetAlertPlan(stored: [], conditions: [down], now: start, sinks: ["hook"], resendSinks: [], hub: "hub1")
        let gone = FleetAlertPlan(stored: stored(from: first), conditions: [], now: start.adding(.seconds(30)), sinks: ["hook"],
                                  resendSinks: [], hub: "hub1")
        XCTAssertEqual(gone.resolve.map(\.key), [down.key])
        let resolved = try XCTUnwrap(gone.notices.first?.payload)
        XCTAssertEqual(resolved.state, .resolved)
        XCTAssertTrue(resolved.message.hasPrefix("resolved: "), resolved.message)
        XCTAssertEqual(resolved.since, start)

        let quiet = FleetAlertPlan(stored: stored(from: gone), conditions: [], now: start.adding(.seconds(40)), sinks: ["hook"],
                                   resendSinks: [], hub: "hub1")
        XCTAssertTrue(quiet.isEmpty)

        let refire = FleetAlertPlan(stored: stored(from: gone), conditions: [down], now: start.adding(.seconds(50)),
                                    sinks: ["hook"], resendSinks: [], hub: "hub1")
        XCTAssertEqual(refire.fire.count, 1)
        XCTAssertNotEqual(refire.notices.first?.payload.idempotencyKey, first.notices.first?.payload.idempotencyKey)
    }

    func testARotationResolvesByItselfAfterAnHour() {
        let rotation = FleetCondition(kind: .serverKeyChanged, subject: "https://api.example.net/", detail: "sha256/B",
                                      severity: .info, message: "rotated")
        let first = FleetAlertPlan(stored: [], conditions: [rotation], now: start, sinks: ["hook"], resendSinks: [], hub: "h")
        XCTAssertEqual(first.notices.first?.payload.severity, .info)
        let later = FleetAlertPlan(stored: stored(from: first), conditions: [], now: start.adding(.seconds(600)),
                                   sinks: ["hook"], resendSinks: [], hub: "h")
        XCTAssertTrue(later.isEmpty, "an event is not resolved because its condition is gone")
        let hour = FleetAlertPlan(stored: stored(from: first), conditions: [], now: start.adding(FleetAlertPlan.eventDuration),
                                  sinks: ["hook"], resendSinks: [], hub: "h")
        XCTAssertEqual(hour.resolve.count, 1)
    }

    func testAlertmanagerSinksGetFiringAlertsAgainEachResendInterval() {
        let first = FleetAlertPlan(stored: [], conditions: [down], now: start, sinks: ["hook", "am"],
                                   resendSinks: [("am", .seconds(60))], hub: "h")
        let early = FleetAlertPlan(stored: stored(from: first), conditions: [down], now: start.adding(.seconds(59)),
                                   sinks: ["hook", "am"], resendSinks: [("am", .seconds(60))], hub: "h")
        XCTAssertTrue(early.isEmpty)
        let due = FleetAlertPlan(stored: stored(from: first), conditions: [down], now: start.adding(.seconds(60)),
                                 sinks: ["hook", "am"], resendSinks: [("am", .seconds(60))], hub: "h")
        XCTAssertEqual(due.touched, [down.key])
        XCTAssertEqual(due.notices.map(\.sink), ["am"], "only Alertmanager needs reminding")
        XCTAssertEqual(due.notices.first?.payload.state, .firing)
    }

    func testPayloadRoundTripsThroughJSON() throws {
        let plan = FleetAlertPlan(stored: [], conditions: [down], now: start, sinks: ["hook"], resendSinks: [], hub: "h")
        let payload = try XCTUnwrap(plan.notices.first?.payload)
        let text = try payload.jsonText()
        XCTAssertTrue(text.contains("\"idempotency_key\":\"fleet-"), text)
        XCTAssertEqual(try FleetAlertPayload.decode(text), payload)
    }
}
