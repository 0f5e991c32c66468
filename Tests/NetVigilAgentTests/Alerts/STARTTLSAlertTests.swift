import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// A STARTTLS target left in plaintext is never a success: `trust_failure` fires (and `target_down` counts it).
final class STARTTLSAlertTests: XCTestCase {
    typealias F = AlertFixtures

    func testSTARTTLSUnavailableIsATrustFailure() {
        var rules = AlertRules()
        rules[.targetDown].enabled = false
        let engine = AlertEngine(rules: rules, logger: LogRecorder().logger())
        let context = F.context(sinks: ["pager"])
        let stripped = F.record(at: F.at(0), outcome: .failed, errorKind: .starttlsUnavailable,
                                errorMessage: "the SMTP server does not offer STARTTLS in its EHLO reply")
        let decision = engine.evaluate(stripped, context: context, now: F.at(0))
        XCTAssertEqual(decision.rows.map(\.kind), ["trust_failure"])
        XCTAssertTrue(decision.events.first?.message.hasPrefix("STARTTLS unavailable on api.example.com:8443") == true,
                      decision.events.first?.message ?? "no event")
        XCTAssertEqual(AlertObservation.failureCause(stripped, context: context, now: F.at(0)), .trustFailure)
        XCTAssertEqual(AlertObservation.judge(stripped, kind: .targetDown, rule: AlertRule(), context: context, now: F.at(0)),
                       .bad(message: "api is down (starttlsUnavailable): the SMTP server does not offer STARTTLS in its EHLO reply",
                            fingerprint: "down"))
    }
}
