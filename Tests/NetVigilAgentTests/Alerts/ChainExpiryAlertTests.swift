import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `cert_expiring` over the whole validated chain: the certificate that expires first is named with its depth,
/// `within` is a duration or a share of the lifetime, short-lived certificates get a third of theirs by default,
/// and a target's `rules:` override the global settings.
final class ChainExpiryAlertTests: XCTestCase {
    typealias E = ExpiryFixtures
    private let now = AlertFixtures.base
    private let context = AlertFixtures.context(sinks: ["pager"])

    private func messages(_ decision: AlertDecision) -> [String] {
        AlertFixtures.events(decision, .certExpiring).map(\.message)
    }

    func testTheIntermediateOrAnchorThatExpiresFirstIsNamedWithItsDepth() throws {
        let engine = E.engine()
        let leaf = E.certificate("leaf.example", now: now, left: 80 * E.day, days: 90)
        let intermediate = E.certificate("Issuing CA", now: now, left: 10 * E.day, days: 5 * 365)
        let anchor = E.certificate("Root CA", now: now, left: 20 * 365 * E.day, days: 25 * 365)
        let decision = engine.evaluate(E.record(at: now, chain: [leaf, intermediate, anchor]), context: context, now: now)
        XCTAssertEqual(AlertFixtures.rows(decision, .certExpiring).count, 1)
        XCTAssertEqual(messages(decision), ["certificate CN=Issuing CA on api.example.com:8443 expires in 10 days "
                                            + "(\(intermediate.notAfter.rfc3339)); depth 1 (intermediate)"])
        let payload = try AlertFixtures.payload(AlertFixtures.rows(decision, .certExpiring)[0])
        XCTAssertEqual(payload["kind"] as? String, "cert_expiring")
        XCTAssertEqual((payload["report"] as? [String: Any])?["validated-certificate-chain"] as? [String] , [leaf, intermediate, anchor].map(\.pem))

        // The anchor now expires first (and sooner than the intermediate): a new report, naming the anchor.
        let oldRoot = E.certificate("Old Root", now: now, left: 3 * E.day, days: 20 * 365)
        let next = engine.evaluate(E.record(at: now, chain: [leaf, intermediate, oldRoot]), context: context, now: now)
        XCTAssertEqual(messages(next), ["certificate CN=Old Root on api.example.com:8443 expires in 3 days "
                                        + "(\(oldRoot.notAfter.rfc3339)); depth 2 (anchor), the first of 2 expiring certificates in the chain"])
        // A renewed intermediate and another root: resolved.
        let renewed = E.certificate("Issuing CA 2", now: now, left: 4 * 365 * E.day, days: 5 * 365)
        let resolved = engine.evaluate(E.record(at: now, chain: [leaf, renewed, anchor]), context: context, now: now)
        XCTAssertEqual(AlertFixtures.events(resolved, .certExpiring).map(\.state), [.resolved])
        XCTAssertTrue(engine.firing().isEmpty)
    }

    func testNothingFiresWhileEveryCertificateIsOutsideItsWindow() {
        let engine = E.engine()
        let chain = [E.certificate("leaf.example", now: now, left: 15 * E.day, days: 90),
                     E.certificate("Issuing CA", now: now, left: 15 * E.day, days: 5 * 365),
                     E.certificate("Root CA", now: now, left: 3_000 * E.day, days: 7_000)]
        XCTAssertTrue(engine.evaluate(E.record(at: now, chain: chain), context: context, now: now).isEmpty)
        // Nothing validated: the served chain is judged instead (an expired intermediate of an untrusted chain).
        let served = [chain[0], E.certificate("Stale CA", now: now, left: -E.day, days: 365)]
        let untrusted = engine.evaluate(E.record(at: now, chain: served, trusted: false), context: context, now: now)
        XCTAssertEqual(messages(untrusted), ["certificate CN=Stale CA on api.example.com:8443 expired at "
                                             + "\(served[1].notAfter.rfc3339); depth 1 (intermediate)"])
    }

    func testASevenDayCertificateIsExpiringInTheLastThirdOfItsLifetimeByDefault() {
        let engine = E.engine()
        XCTAssertEqual(engine.rules[.certExpiring].window, .automatic(.seconds(14 * E.day)))
        // 7 days of life: the window is 56 hours, not the 14 days that would page for all of it.
        let fresh = E.certificate("short.example", now: now, left: 57 * 3_600, days: 7)
        XCTAssertTrue(engine.evaluate(E.record(at: now, chain: [fresh]), context: context, now: now).isEmpty)
        let later = now.adding(.seconds(2 * 3_600))
        let decision = engine.evaluate(E.record(at: later, chain: [fresh]), context: context, now: later)
        XCTAssertEqual(messages(decision), ["certificate CN=short.example on api.example.com:8443 expires in 2 days "
                                            + "(\(fresh.notAfter.rfc3339)); depth 0 (leaf)"])
        // 31 days of life is not short-lived: 14 days.
        let monthly = E.certificate("monthly.example", now: now, left: 13 * E.day, days: 31)
        XCTAssertEqual(messages(E.engine().evaluate(E.record(at: now, chain: [monthly]), context: context, now: now)).count, 1)
        // 30 days is: a third is 10 days.
        let thirty = E.certificate("thirty.example", now: now, left: 11 * E.day, days: 30)
        XCTAssertTrue(E.engine().evaluate(E.record(at: now, chain: [thirty]), context: context, now: now).isEmpty)
        // A configured duration applies to every certificate, short-lived ones included.
        let fixed = E.engine { $0[.certExpiring].within = .seconds(3 * E.day) }
        XCTAssertEqual(messages(fixed.evaluate(E.record(at: now, chain: [fresh]), context: context, now: now)).count, 1)
    }

    func testWithinAsAShareOfTheLifetime() throws {
        let rules = try AgentConfiguration(yaml: "alerts:\n  rules:\n    cert_expiring: { within: 33% }\n", file: "netvigil.yml").alerts.rules
        XCTAssertEqual(rules[.certExpiring].window, .share(0.33))
        let engine = AlertEngine(rules: rules, logger: LogRecorder().logger())
        // 90 days × 33% = 29.7 days.
        let outside = E.certificate("leaf.example", now: now, left: 30 * E.day, days: 90)
        XCTAssertTrue(engine.evaluate(E.record(at: now, chain: [outside]), context: context, now: now).isEmpty)
        let inside = E.certificate("leaf.example", now: now, left: 29 * E.day, days: 90)
        XCTAssertEqual(messages(engine.evaluate(E.record(at: now, chain: [inside]), context: context, now: now)).count, 1)
        // Each certificate by its own lifetime: 3 years left of a 10-year root is inside 33%, 60 days of 90 are not.
        let leaf = E.certificate("leaf2.example", now: now, left: 60 * E.day, days: 90)
        let root = E.certificate("Root CA", now: now, left: 3 * 365 * E.day, days: 10 * 365)
        let decision = engine.evaluate(E.record(at: now, chain: [leaf, root]), context: context, now: now)
        XCTAssertTrue(messages(decision).first?.hasPrefix("certificate CN=Root CA on api.example.com:8443 expires in 1095 days") == true,
                      "\(messages(decision))")
    }

    func testATargetsRulesOverrideTheGlobalWindow() throws {
        let engine = E.engine()
        let chain = [E.certificate("leaf.example", now: now, left: 50 * E.day, days: 398)]
        XCTAssertTrue(engine.evaluate(E.record(at: now, chain: chain), context: context, now: now).isEmpty)
        var overridden = AlertFixtures.context(target: "strict", sinks: ["pager"])
        overridden.ruleOverrides[.certExpiring] = AlertRuleOverride(window: .duration(.seconds(60 * E.day)))
        var record = E.record(at: now, chain: chain)
        record.target = "strict"
        let decision = engine.evaluate(record, context: overridden, now: now)
        XCTAssertEqual(AlertFixtures.rows(decision, .certExpiring).map(\.target), ["strict"])
        // The other settings of the rule stay global (reminder 24h) and the other target is not affected.
        XCTAssertEqual(engine.rules.rule(.certExpiring, for: overridden.ruleOverrides).reminder, .seconds(86_400))
        XCTAssertEqual(engine.firing().map(\.target), ["strict"])
        // A target can turn a rule off for itself: its state goes.
        overridden.ruleOverrides[.certExpiring] = AlertRuleOverride(enabled: false)
        XCTAssertTrue(engine.evaluate(record, context: overridden, now: now).isEmpty)
        XCTAssertTrue(engine.firing().isEmpty)
    }
}
