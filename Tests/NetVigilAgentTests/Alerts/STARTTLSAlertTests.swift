import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// A STARTTLS target left in plaintext is never a success: `trust_failure` pages (one cause, one page: not
/// `target_down` as well).
final class STARTTLSAlertTests: XCTestCase {
    typealias F = AlertFixtures

    func testSTARTTLSUnavailableIsATrustFailure() {
        let engine = AlertEngine(rules: AlertRules(), logger: LogRecorder().logger())
        let context = F.context(sinks: ["pager"])
        let stripped = F.record(at: F.at(0), outcome: .failed, errorKind: .starttlsUnavailable,
                                errorMessage: "the SMTP server does not offer STARTTLS in its EHLO reply")
        let decision = engine.evaluate(stripped, context: context, now: F.at(0))
        XCTAssertEqual(decision.rows.map(\.kind), ["trust_failure"])
        XCTAssertTrue(decision.events.first?.message.hasPrefix("STARTTLS unavailable on api.example.com:8443") == true,
                      decision.events.first?.message ?? "no event")
        XCTAssertEqual(AlertObservation.failureCause(stripped, context: context, now: F.at(0)), .trustFailure)
        let plaintext = engine.evaluate(F.record(at: F.at(10), outcome: .failed, errorKind: .starttlsUnavailable,
                                                 errorMessage: "STARTTLS was answered \"454 4.7.0 TLS not available\""),
                                        context: context, now: F.at(10))
        XCTAssertTrue(plaintext.rows.isEmpty, "still the same page: \(plaintext.rows.map(\.kind))")
    }
}
