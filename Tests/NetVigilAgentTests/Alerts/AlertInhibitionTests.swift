import Foundation
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// One cause, one page: a failure that `pin_mismatch`, `trust_failure` or `cert_expiring` explains does not also
/// fire `target_down`, unless the explaining rule says `inhibit: false`.
final class AlertInhibitionTests: XCTestCase {
    typealias F = AlertFixtures

    private func engine(_ configure: (inout AlertRules) -> Void = { _ in }) -> AlertEngine {
        var rules = AlertRules()
        rules[.certExpiring].reminder = nil
        configure(&rules)
        return AlertEngine(rules: rules, logger: LogRecorder().logger())
    }

    /// Feeds `records` one every 10 s from `start`; returns every event, in order.
    private func feed(_ engine: AlertEngine, _ records: (Timestamp) -> ProbeRecord, count: Int, from start: Int64 = 0,
                      context: AlertContext = F.context(sinks: ["pager"])) -> [AlertEvent] {
        (0..<count).flatMap { index -> [AlertEvent] in
            let now = F.at(start + Int64(index) * 10)
            return engine.evaluate(records(now), context: context, now: now).events
        }
    }

    func testAKeySwapPagesPinMismatchOnlyAndResolvesOnlyIt() {
        let engine = engine()
        let firing = feed(engine, { F.mismatch(at: $0) }, count: 6)
        XCTAssertEqual(firing.map(\.kind), ["pin_mismatch"], "\(firing)")
        XCTAssertEqual(engine.firing().map(\.kind), ["pin_mismatch"])
        let resolved = feed(engine, { F.record(at: $0) }, count: 3, from: 60)
        XCTAssertEqual(resolved.map(\.kind), ["pin_mismatch"])
        XCTAssertEqual(resolved.map(\.state), [.resolved])
    }

    func testAnUntrustedChainPagesTrustFailureOnly() {
        let engine = engine()
        let broken = { (time: Timestamp) in
            F.record(at: time, outcome: .failed, chain: [F.certificates.other], trust: .untrusted(reason: "chainInvalid"),
                     pin: .notEvaluated, errorKind: .trust, errorMessage: "certificate chain invalid")
        }
        XCTAssertEqual(feed(engine, broken, count: 6).map(\.kind), ["trust_failure"])
        let insecure = { (time: Timestamp) in
            F.record(at: time, outcome: .failed, errorKind: .insecureRedirect, errorMessage: "302 to http:// not followed")
        }
        let redirecting = self.engine()
        XCTAssertEqual(feed(redirecting, insecure, count: 6).map(\.kind), ["trust_failure"])
    }

    func testAMinCertValidityFailurePagesCertExpiringOnlyEvenInsideItsOwnWindow() {
        // The leaf has 4–5 days left; the rule's own window is 1 day, the target asks for 14 days.
        let engine = engine { $0[.certExpiring].within = .seconds(86_400) }
        let now = Timestamp.now()
        let context = F.context(sinks: ["pager"])
        var strict = context
        strict.minCertificateValidity = .seconds(14 * 86_400)
        let failing = { (time: Timestamp) in
            F.record(at: time, outcome: .failed, chain: [F.certificates.shortLived], errorKind: .expectation,
                     errorMessage: "certificate expires in 110.0 h, less than 336.0 h")
        }
        var events: [AlertEvent] = []
        for index in 0..<6 {
            let time = now.adding(.seconds(Int64(index) * 10))
            events += engine.evaluate(failing(time), context: strict, now: time).events
        }
        XCTAssertEqual(events.map(\.kind), ["cert_expiring"])
        XCTAssertTrue(events[0].message.contains("expires in 4 days") || events[0].message.contains("expires in 5 days"),
                      events[0].message)
        // A renewed certificate resolves it, and target_down never fired to resolve.
        let renewed = engine.evaluate(F.record(at: now.adding(.seconds(60))), context: strict, now: now.adding(.seconds(60)))
        XCTAssertEqual(renewed.events.map(\.kind), ["cert_expiring"])
        XCTAssertEqual(renewed.events.map(\.state), [.resolved])
    }

    func testInhibitFalseLetsTargetDownFireToo() {
        let engine = engine { $0[.pinMismatch].inhibit = false }
        let events = feed(engine, { F.mismatch(at: $0) }, count: 6)
        XCTAssertEqual(events.map(\.kind), ["pin_mismatch", "target_down"])
        let resolved = feed(engine, { F.record(at: $0) }, count: 3, from: 60)
        XCTAssertEqual(Set(resolved.map(\.kind)), ["pin_mismatch", "target_down"])
    }

    func testADisabledCauseRuleDoesNotSilenceTargetDown() {
        let engine = engine { $0[.pinMismatch].enabled = false }
        XCTAssertEqual(feed(engine, { F.mismatch(at: $0) }, count: 6).map(\.kind), ["target_down"])
    }

    func testOtherFailuresStillPageTargetDown() {
        let engine = engine()
        XCTAssertEqual(feed(engine, { F.down(at: $0) }, count: 6).map(\.kind), ["target_down"])
        // An expectation failure with a healthy certificate is not cert_expiring's to explain.
        var strict = F.context(sinks: ["pager"])
        strict.minCertificateValidity = .seconds(14 * 86_400)
        let other = self.engine()
        let failing = { (time: Timestamp) in
            F.record(at: time, outcome: .failed, errorKind: .expectation, errorMessage: "body does not contain \"UP\"")
        }
        XCTAssertEqual(feed(other, failing, count: 6, context: strict).map(\.kind), ["target_down"])
    }

    func testAFiringTargetDownNeitherResolvesNorRepagesWhileAPinMismatchExplainsTheFailures() {
        let engine = engine()
        XCTAssertEqual(feed(engine, { F.down(at: $0) }, count: 3).map(\.kind), ["target_down"])
        // The server comes back with the wrong key: one new page (the mismatch), target_down keeps firing quietly.
        let swapped = feed(engine, { F.mismatch(at: $0) }, count: 4, from: 30)
        XCTAssertEqual(swapped.map(\.kind), ["pin_mismatch"])
        XCTAssertEqual(Set(engine.firing().map(\.kind)), ["pin_mismatch", "target_down"])
        // The right key again: both resolve (target_down after its resolve_threshold of 2).
        let healthy = feed(engine, { F.record(at: $0) }, count: 2, from: 70)
        XCTAssertEqual(Set(healthy.map(\.kind)), ["pin_mismatch", "target_down"])
        XCTAssertEqual(Set(healthy.map(\.state)), [.resolved])
    }
}
