import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

final class AlertEngineTests: XCTestCase {
    typealias F = AlertFixtures

    private func engine(_ configure: (inout AlertRules) -> Void = { _ in }, logs: LogRecorder = LogRecorder()) -> AlertEngine {
        var rules = AlertRules()
        configure(&rules)
        return AlertEngine(rules: rules, logger: logs.logger())
    }

    func testTargetDownFiresAfterThresholdAndResolvesAfterResolveThreshold() {
        let engine = engine()
        let context = F.context()
        XCTAssertTrue(engine.evaluate(F.down(at: F.at(0)), context: context, now: F.at(0)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.down(at: F.at(30)), context: context, now: F.at(30)).isEmpty)
        let fired = engine.evaluate(F.down(at: F.at(60)), context: context, now: F.at(60))
        XCTAssertEqual(fired.rows.map(\.sink), ["pager", "script"])
        XCTAssertEqual(fired.rows.map(\.kind), ["target_down", "target_down"])
        XCTAssertEqual(fired.events, [AlertEvent(kind: "target_down", state: .firing, target: "api", time: F.at(60),
                                                 message: "api is down (connectRefused): connection to 127.0.0.1:8443 refused")])
        XCTAssertEqual(engine.firing().map(\.kind), ["target_down"])
        XCTAssertEqual(engine.firing().first?.since, F.at(60))

        // One good result is not enough (resolve_threshold 2), a bad one in between restarts the count.
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(90)), context: context, now: F.at(90)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.down(at: F.at(120)), context: context, now: F.at(120)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(150)), context: context, now: F.at(150)).isEmpty)
        let resolved = engine.evaluate(F.record(at: F.at(180)), context: context, now: F.at(180))
        XCTAssertEqual(resolved.rows.count, 2)
        XCTAssertEqual(resolved.events.map(\.state), [.resolved])
        XCTAssertEqual(try F.payload(resolved.rows[0])["state"] as? String, "resolved")
        XCTAssertNil(try F.payload(resolved.rows[0])["since"])
        XCTAssertTrue(engine.firing().isEmpty)
    }

    func testRowsArePendingDueNowWithUniqueIdempotencyKeys() throws {
        let engine = engine()
        let decision = engine.evaluate(F.mismatch(at: F.at(0)), context: F.context(), now: F.at(5))
        let rows = F.rows(decision, .pinMismatch)
        XCTAssertEqual(rows.count, 2)
        for row in rows {
            XCTAssertEqual(row.state, .pending)
            XCTAssertEqual(row.attempts, 0)
            XCTAssertEqual(row.nextAttemptAt, F.at(5))
            XCTAssertEqual(row.time, F.at(5))
            XCTAssertNil(row.id)
            XCTAssertEqual(try F.payload(row)["idempotency_key"] as? String, row.idempotencyKey)
        }
        XCTAssertNotEqual(rows[0].idempotencyKey, rows[1].idempotencyKey)
        let all = decision.rows.map(\.idempotencyKey)
        XCTAssertEqual(Set(all).count, all.count)
        // The next alert gets new keys.
        let later = engine.evaluate(F.mismatch(at: F.at(7 * 3_600)), context: F.context(), now: F.at(7 * 3_600))
        XCTAssertTrue(Set(later.rows.map(\.idempotencyKey)).isDisjoint(with: all))
    }

    func testRemindersFollowTheReminderIntervalWhileFiring() {
        let engine = engine()
        let context = F.context(sinks: ["pager"])
        let hour: Int64 = 3_600
        XCTAssertEqual(engine.evaluate(F.mismatch(at: F.at(0)), context: context, now: F.at(0)).rows.count, 1)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(hour)), context: context, now: F.at(hour)), .pinMismatch).isEmpty)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(6 * hour - 1)), context: context, now: F.at(6 * hour - 1)), .pinMismatch).isEmpty)
        let reminder = engine.evaluate(F.mismatch(at: F.at(6 * hour)), context: context, now: F.at(6 * hour))
        XCTAssertEqual(F.rows(reminder, .pinMismatch).count, 1)
        XCTAssertEqual(F.events(reminder, .pinMismatch).map(\.reminder), [true])
        XCTAssertEqual(try F.payload(F.rows(reminder, .pinMismatch)[0])["reminder"] as? Bool, true)
        XCTAssertEqual(try F.payload(F.rows(reminder, .pinMismatch)[0])["since"] as? String, F.at(0).rfc3339)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(6 * hour + 60)), context: context, now: F.at(6 * hour + 60)), .pinMismatch).isEmpty)
        XCTAssertEqual(F.rows(engine.evaluate(F.mismatch(at: F.at(12 * hour)), context: context, now: F.at(12 * hour)), .pinMismatch).count, 1)
        // The alert still started at 0.
        XCTAssertEqual(engine.firing().first { $0.kind == "pin_mismatch" }?.since, F.at(0))
    }

    func testNoRemindersWhenReminderIsOff() {
        let engine = engine { $0[.pinMismatch].reminder = nil }
        let context = F.context(sinks: ["pager"])
        XCTAssertEqual(F.rows(engine.evaluate(F.mismatch(at: F.at(0)), context: context, now: F.at(0)), .pinMismatch).count, 1)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(86_400 * 30)), context: context, now: F.at(86_400 * 30)), .pinMismatch).isEmpty)
    }

    func testSendResolvedFalseEmitsTheEventButNoRows() {
        let engine = engine { $0[.targetDown] = AlertRule(threshold: 1, resolveThreshold: 1, sendResolved: false) }
        let context = F.context()
        XCTAssertEqual(engine.evaluate(F.down(at: F.at(0)), context: context, now: F.at(0)).rows.count, 2)
        let resolved = engine.evaluate(F.record(at: F.at(10)), context: context, now: F.at(10))
        XCTAssertTrue(resolved.rows.isEmpty)
        XCTAssertEqual(resolved.events.map(\.state), [.resolved])
        XCTAssertTrue(engine.firing().isEmpty)
    }

    func testSkippedResultsAreNeutral() {
        let engine = engine()
        let context = F.context()
        // Failures separated by skipped probes still count as consecutive; skipped ones never fire.
        for second in [0, 10, 20, 30] as [Int64] {
            XCTAssertTrue(engine.evaluate(F.skipped(at: F.at(second)), context: context, now: F.at(second)).isEmpty)
        }
        XCTAssertTrue(engine.evaluate(F.down(at: F.at(40)), context: context, now: F.at(40)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.skipped(at: F.at(50)), context: context, now: F.at(50)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.down(at: F.at(60)), context: context, now: F.at(60)).isEmpty)
        XCTAssertTrue(engine.evaluate(F.skipped(at: F.at(70)), context: context, now: F.at(70)).isEmpty)
        XCTAssertEqual(engine.evaluate(F.down(at: F.at(80)), context: context, now: F.at(80)).events.map(\.state), [.firing])
        // Skipped results neither resolve nor break the good streak.
        XCTAssertTrue(engine.evaluate(F.record(at: F.at(90)), context: context, now: F.at(90)).isEmpty)
        for second in [100, 110, 120] as [Int64] {
            XCTAssertTrue(engine.evaluate(F.skipped(at: F.at(second)), context: context, now: F.at(second)).isEmpty)
        }
        XCTAssertEqual(engine.firing().count, 1)
        XCTAssertEqual(engine.evaluate(F.record(at: F.at(130)), context: context, now: F.at(130)).events.map(\.state), [.resolved])
    }

    func testReportOnlyMismatchFiresPinMismatchOnly() throws {
        let logs = LogRecorder()
        let engine = engine(logs: logs)
        let decision = engine.evaluate(F.mismatch(at: F.at(0), reportOnly: true), context: F.context(), now: F.at(0))
        XCTAssertEqual(Set(decision.rows.map(\.kind)), ["pin_mismatch"])
        XCTAssertEqual(decision.events.count, 1)
        let message = decision.events[0].message
        XCTAssertTrue(message.hasPrefix("report-only pin mismatch on api.example.com:8443"), message)
        XCTAssertTrue(message.contains(F.certificates.other.spkiPin), message)
        XCTAssertTrue(message.contains(F.certificates.pinned.spkiPin), message)
        let critical = logs.all.filter { $0.level == .critical }
        XCTAssertEqual(critical.count, 1)
        XCTAssertEqual(critical.first?.metadata["target"], "api")
        XCTAssertEqual(critical.first?.metadata["kind"], "pin_mismatch")
        XCTAssertTrue(critical.first?.message.contains(message) ?? false)
    }

    func testEnforcedMismatchIsNotATrustFailureButABrokenChainIs() {
        let engine = engine { $0[.targetDown].enabled = false }
        let context = F.context(sinks: ["pager"])
        let mismatch = engine.evaluate(F.mismatch(at: F.at(0)), context: context, now: F.at(0))
        XCTAssertEqual(mismatch.rows.map(\.kind), ["pin_mismatch"])
        let broken = F.record(at: F.at(10), outcome: .failed, chain: [F.certificates.other], trust: .untrusted(reason: "chainInvalid"),
                              pin: .notEvaluated, errorKind: .trust,
                              errorMessage: "untrusted for api.example.com: certificate chain invalid: self-signed certificate\nmore")
        let trust = engine.evaluate(broken, context: context, now: F.at(10))
        XCTAssertEqual(trust.rows.map(\.kind), ["trust_failure"])
        XCTAssertEqual(trust.events.first?.message,
                       "untrusted certificate on api.example.com:8443 (chainInvalid): untrusted for api.example.com: certificate chain invalid: self-signed certificate")
        // not_evaluated pins are neutral: the pin alert keeps firing, a matched pin resolves both.
        XCTAssertEqual(Set(engine.firing().map(\.kind)), ["pin_mismatch", "trust_failure"])
        let good = engine.evaluate(F.record(at: F.at(20)), context: context, now: F.at(20))
        XCTAssertEqual(Set(good.events.map(\.kind)), ["pin_mismatch", "trust_failure"])
        XCTAssertEqual(Set(good.events.map(\.state)), [.resolved])
    }

    func testInsecureRedirectIsATrustFailureAndResolvesWhenTheRedirectGoes() {
        let engine = engine { $0[.targetDown].enabled = false }
        let context = F.context(sinks: ["pager"])
        // The certificate was fine (trusted, pins matched): the refused https → http redirect alone is the trust problem.
        let refused = F.record(at: F.at(0), outcome: .failed, errorKind: .insecureRedirect,
                               errorMessage: "302 redirect from https://api.example.com:8443/health to http://api.example.com/health not followed")
        let decision = engine.evaluate(refused, context: context, now: F.at(0))
        XCTAssertEqual(decision.rows.map(\.kind), ["trust_failure"])
        XCTAssertTrue(decision.events.first?.message.hasPrefix("insecure redirect on api.example.com:8443: 302 redirect") == true,
                      decision.events.first?.message ?? "no event")
        let good = engine.evaluate(F.record(at: F.at(10)), context: context, now: F.at(10))
        XCTAssertEqual(good.events.map(\.kind), ["trust_failure"])
        XCTAssertEqual(good.events.map(\.state), [.resolved])
    }

    func testIdenticalReportsAreNotResentInsideTheWindowButNewOnesAre() {
        let engine = engine()
        let context = F.context(sinks: ["pager"])
        let other = [F.certificates.other]
        let third = [F.certificates.shortLived]
        XCTAssertEqual(F.rows(engine.evaluate(F.mismatch(at: F.at(0), chain: other), context: context, now: F.at(0)), .pinMismatch).count, 1)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(60), chain: other), context: context, now: F.at(60)), .pinMismatch).isEmpty)
        // A different served chain is a different report: sent at once, not as a reminder.
        let changed = engine.evaluate(F.mismatch(at: F.at(120), chain: third), context: context, now: F.at(120))
        XCTAssertEqual(F.rows(changed, .pinMismatch).count, 1)
        XCTAssertEqual(F.events(changed, .pinMismatch).map(\.reminder), [false])
        // Alternating back to a report already sent inside the window: nothing.
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(180), chain: other), context: context, now: F.at(180)), .pinMismatch).isEmpty)
        XCTAssertTrue(F.rows(engine.evaluate(F.mismatch(at: F.at(240), chain: third), context: context, now: F.at(240)), .pinMismatch).isEmpty)
        // The same chain with other known pins (policy changed) is a new report too.
        let newPins = F.context(sinks: ["pager"], pins: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        XCTAssertEqual(F.rows(engine.evaluate(F.mismatch(at: F.at(300), chain: other), context: newPins, now: F.at(300)), .pinMismatch).count, 1)
    }

    func testCertificateExpiringWithinTheWindowFires() throws {
        let engine = engine { $0[.certExpiring].within = .seconds(14 * 86_400); $0[.certExpiring].reminder = nil }
        let context = F.context(sinks: ["pager"])
        let now = Timestamp.now()
        XCTAssertTrue(engine.evaluate(F.record(at: now), context: context, now: now).isEmpty)  // 90 days left
        let expiring = F.record(at: now, chain: [F.certificates.shortLived], pin: .matched)
        let decision = engine.evaluate(expiring, context: context, now: now)
        XCTAssertEqual(decision.rows.map(\.kind), ["cert_expiring"])
        let message = decision.events[0].message
        XCTAssertTrue(message.hasPrefix("certificate CN=short.example on api.example.com:8443 expires in 4 days")
                      || message.hasPrefix("certificate CN=short.example on api.example.com:8443 expires in 5 days"), message)
        // Judged against `now`: 6 days later the same certificate has expired (same report, reminders off: no row).
        let later = now.adding(.seconds(6 * 86_400))
        XCTAssertTrue(engine.evaluate(F.record(at: later, chain: [F.certificates.shortLived]), context: context, now: later).isEmpty)
        XCTAssertTrue(engine.firing()[0].message.contains("expired at"), engine.firing()[0].message)
        // A renewed certificate resolves it.
        XCTAssertEqual(engine.evaluate(F.record(at: later, chain: [F.certificates.pinned]), context: context, now: later).events.map(\.state), [.resolved])
    }

    func testDisabledRulesAndTargetsWithoutSinks() {
        let engine = engine { $0[.pinMismatch].enabled = false }
        XCTAssertTrue(engine.evaluate(F.mismatch(at: F.at(0), reportOnly: true), context: F.context(), now: F.at(0)).isEmpty)
        // No sinks: the alert fires (event, log, status) but writes no rows.
        let engine2 = self.engine()
        let decision = engine2.evaluate(F.mismatch(at: F.at(0), reportOnly: true), context: F.context(sinks: []), now: F.at(0))
        XCTAssertTrue(decision.rows.isEmpty)
        XCTAssertEqual(decision.events.count, 1)
        // Turning a rule off on reload drops its state.
        engine2.update(rules: { var rules = AlertRules(); rules[.pinMismatch].enabled = false; return rules }())
        XCTAssertTrue(engine2.firing().isEmpty)
    }

    func testRestoreFromTheStoreDoesNotPageAgainAndStillResolves() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("alerts.sqlite"))
        let first = engine()
        let context = F.context()
        let fired = first.evaluate(F.mismatch(at: F.at(0)), context: context, now: F.at(0))
        try await store.write(WriteBatch(probes: [F.mismatch(at: F.at(0))], alerts: fired.rows))
        // A resolved pair must not come back as firing.
        let engineDown = engine { $0[.targetDown] = AlertRule(threshold: 1, resolveThreshold: 1) }
        var rows = engineDown.evaluate(F.down(at: F.at(0)), context: context, now: F.at(0)).rows
        rows += engineDown.evaluate(F.record(at: F.at(10)), context: context, now: F.at(10)).rows
        try await store.write(WriteBatch(alerts: rows.filter { $0.kind == "target_down" }))

        let restarted = engine()
        let restored = try await restarted.restore(from: store)
        XCTAssertEqual(restored, 1)
        XCTAssertEqual(restarted.firing().map(\.kind), ["pin_mismatch"])
        XCTAssertEqual(restarted.firing().first?.since, F.at(0))
        XCTAssertTrue(restarted.firing().first?.message.contains("pin mismatch") ?? false)
        // Still mismatching after the restart: no page (inside the reminder window).
        XCTAssertTrue(F.rows(restarted.evaluate(F.mismatch(at: F.at(60)), context: context, now: F.at(60)), .pinMismatch).isEmpty)
        // The reminder clock continues from the stored row.
        XCTAssertEqual(F.events(restarted.evaluate(F.mismatch(at: F.at(6 * 3_600)), context: context, now: F.at(6 * 3_600)), .pinMismatch).map(\.reminder), [true])
        // Fixed: resolved, delivered to both sinks.
        let resolved = restarted.evaluate(F.record(at: F.at(7 * 3_600)), context: context, now: F.at(7 * 3_600))
        XCTAssertEqual(F.rows(resolved, .pinMismatch).count, 2)
    }
}
