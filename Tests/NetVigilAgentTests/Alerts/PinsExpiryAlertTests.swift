import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `pins_expiring` fires `within` (30 days by default) before a policy's `pins_expire`; `pins_expired` fires when the
/// pins lapse and pinning fails open; renewing the pins resolves both.
final class PinsExpiryAlertTests: XCTestCase {
    typealias F = AlertFixtures
    private let day: Int64 = 86_400

    private func context(expire: Timestamp?, target: String = "api") -> AlertContext {
        var context = F.context(target: target, sinks: ["pager"])
        context.pinsExpire = expire.map { Date(timeIntervalSince1970: TimeInterval($0.milliseconds) / 1_000) }
        return context
    }

    func testPinsExpiringFiresWithinThirtyDaysAndPinsExpiredWhenTheyLapse() throws {
        let engine = ExpiryFixtures.engine()
        let expire = F.at(40 * day)
        let context = context(expire: expire)
        // 40 days before: nothing.
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(0)), context: context, now: F.at(0)).isEmpty)
        // 29 days before: pins_expiring, a warning that says what happens next.
        let warning = engine.evaluate(F.record(at: F.at(11 * day)), context: context, now: F.at(11 * day))
        let rows = F.rows(warning, .pinsExpiring)
        XCTAssertEqual(rows.count, 1)
        let message = try XCTUnwrap(F.events(warning, .pinsExpiring).first?.message)
        XCTAssertEqual(message, "pins of TLS policy *.example.com for api.example.com:8443 expire in 29 days (pins_expire "
                       + "\(expire.rfc3339)); after that pinning is OFF and fails open: any trusted certificate is accepted. "
                       + "Renew the pins and move pins_expire")
        XCTAssertTrue(F.rows(warning, .pinsExpired).isEmpty)
        XCTAssertEqual(try F.payload(rows[0])["kind"] as? String, "pins_expiring")
        XCTAssertEqual((try F.payload(rows[0])["report"] as? [String: Any])?["effective-expiration-date"] as? String, expire.rfc3339)

        // At pins_expire: pins_expired, loudly; pins_expiring stays firing without another notice.
        let lapsed = engine.evaluate(F.record(at: expire), context: context, now: expire)
        XCTAssertTrue(F.rows(lapsed, .pinsExpiring).isEmpty)
        XCTAssertEqual(F.rows(lapsed, .pinsExpired).count, 1)
        let notice = try XCTUnwrap(F.events(lapsed, .pinsExpired).first?.message)
        XCTAssertTrue(notice.hasPrefix("PINNING IS OFF for api.example.com:8443"), notice)
        XCTAssertTrue(notice.contains("fails open, as TrustKit does"), notice)
        XCTAssertEqual(engine.firing().map(\.kind), ["pins_expired", "pins_expiring"])
        // No repeat for the same lapse on the next probe.
        XCTAssertTrue(engine.evaluate(F.record(at: expire.adding(.seconds(60))), context: context, now: expire.adding(.seconds(60))).isEmpty)

        // Renewed pins (a pins_expire a year out): both resolve.
        let renewed = engine.evaluate(F.record(at: expire.adding(.seconds(120))), context: self.context(expire: F.at(400 * day)),
                                      now: expire.adding(.seconds(120)))
        XCTAssertEqual(renewed.events.map(\.kind).sorted(), ["pins_expired", "pins_expiring"])
        XCTAssertEqual(Set(renewed.events.map(\.state)), [.resolved])
        XCTAssertTrue(engine.firing().isEmpty)
    }

    func testPoliciesWithoutPinsExpireAndDisabledRulesNeverFire() {
        let engine = ExpiryFixtures.engine()
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(0)), context: context(expire: nil), now: F.at(0)).isEmpty)
        let off = ExpiryFixtures.engine { $0[.pinsExpiring].enabled = false; $0[.pinsExpired].enabled = false }
        XCTAssertTrue(off.evaluate(F.record(at: F.at(0)), context: context(expire: F.at(-day)), now: F.at(0)).isEmpty)
        // Skipped probes judge nothing.
        XCTAssertTrue(engine.evaluate(F.skipped(at: F.at(0)), context: context(expire: F.at(day)), now: F.at(0)).isEmpty)
    }

    func testATargetsOwnWithinForPinsExpiring() {
        let engine = ExpiryFixtures.engine()
        var context = context(expire: F.at(45 * day))
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(0)), context: context, now: F.at(0)).isEmpty)
        context.ruleOverrides[.pinsExpiring] = AlertRuleOverride(window: .duration(.seconds(60 * day)))
        XCTAssertEqual(F.rows(engine.evaluate(F.record(at: F.at(0)), context: context, now: F.at(0)), .pinsExpiring).count, 1)
    }
}
