import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `key_changed` (off by default): the served leaf's key differs from the previous result's, even when the chain is
/// trusted and the pins match; never on the first result ever, and across a restart through the store.
final class KeyChangedAlertTests: XCTestCase {
    typealias F = AlertFixtures
    private let pinned = AlertFixtures.certificates.pinned
    private let other = AlertFixtures.certificates.other

    private func enabled() -> AlertEngine {
        ExpiryFixtures.engine { $0[.keyChanged].enabled = true }
    }

    /// A trusted, matched result serving `leaf` (both fixture keys are "pinned" here: a planned rotation).
    private func served(_ leaf: CertificateRecord, at seconds: Int64) -> ProbeRecord {
        F.record(at: F.at(seconds), chain: [leaf])
    }

    private func context() -> AlertContext {
        F.context(sinks: ["pager"], pins: [pinned.spkiPin, other.spkiPin])
    }

    func testOffByDefault() {
        let engine = ExpiryFixtures.engine()
        XCTAssertFalse(engine.rules[.keyChanged].enabled)
        _ = engine.evaluate(served(pinned, at: 0), context: context(), now: F.at(0))
        XCTAssertTrue(engine.evaluate(served(other, at: 60), context: context(), now: F.at(60)).isEmpty)
    }

    func testAChangedKeyFiresWithOldAndNewPinAndTheNextResultResolvesQuietly() throws {
        let engine = enabled()
        // The first result ever: nothing to compare with.
        XCTAssertTrue(engine.evaluate(served(pinned, at: 0), context: context(), now: F.at(0)).isEmpty)
        XCTAssertTrue(engine.evaluate(served(pinned, at: 60), context: context(), now: F.at(60)).isEmpty)
        // A failed probe without a chain neither fires nor forgets the key.
        XCTAssertTrue(F.rows(engine.evaluate(F.down(at: F.at(90)), context: context(), now: F.at(90)), .keyChanged).isEmpty)

        let changed = engine.evaluate(served(other, at: 120), context: context(), now: F.at(120))
        let rows = F.rows(changed, .keyChanged)
        XCTAssertEqual(rows.count, 1)
        let payload = try F.payload(rows[0])
        XCTAssertEqual(payload["kind"] as? String, "key_changed")
        XCTAssertEqual(payload["message"] as? String, "server key changed on api.example.com:8443: old pin \(pinned.spkiPin), "
                       + "new pin \(other.spkiPin) (CN=other.example, notAfter \(other.notAfter.rfc3339), trusted, pins matched)")
        XCTAssertEqual((payload["report"] as? [String: Any])?["served-certificate-chain"] as? [String], [other.pem])
        XCTAssertEqual(engine.firing().map(\.kind), ["key_changed"])

        // Same key again: resolved, without a notice to the sinks (send_resolved is off by default), no reminders.
        let same = engine.evaluate(served(other, at: 180), context: context(), now: F.at(180))
        XCTAssertEqual(F.events(same, .keyChanged).map(\.state), [.resolved])
        XCTAssertTrue(F.rows(same, .keyChanged).isEmpty)
        XCTAssertTrue(engine.firing().isEmpty)
        // Changing back is another change.
        XCTAssertEqual(F.rows(engine.evaluate(served(pinned, at: 240), context: context(), now: F.at(240)), .keyChanged).count, 1)
    }

    func testAKeySeenAtAnotherEndpointIsNotCompared() {
        let engine = enabled()
        _ = engine.evaluate(served(pinned, at: 0), context: context(), now: F.at(0))
        var moved = context()
        moved.endpoint = "https://api2.example.com:8443/health"
        XCTAssertTrue(F.rows(engine.evaluate(served(other, at: 60), context: moved, now: F.at(60)), .keyChanged).isEmpty)
        // From there on, the new endpoint's key is the one compared.
        XCTAssertEqual(F.rows(engine.evaluate(served(pinned, at: 120), context: moved, now: F.at(120)), .keyChanged).count, 1)
    }

    func testAPerTargetEnableWorksWhileTheRuleIsOffGlobally() {
        let engine = ExpiryFixtures.engine()
        var context = context()
        context.ruleOverrides[.keyChanged] = AlertRuleOverride(enabled: true, sendResolved: true)
        _ = engine.evaluate(served(pinned, at: 0), context: context, now: F.at(0))
        XCTAssertEqual(F.rows(engine.evaluate(served(other, at: 60), context: context, now: F.at(60)), .keyChanged).count, 1)
        XCTAssertEqual(F.rows(engine.evaluate(served(other, at: 120), context: context, now: F.at(120)), .keyChanged).map(\.kind), ["key_changed"])
    }

    func testTheKeyBeforeARestartComesFromTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("netvigil.sqlite"))
        // Nothing stored: the first result after the (first) start fires nothing.
        let fresh = enabled()
        try await fresh.restore(from: store)
        XCTAssertTrue(fresh.evaluate(served(pinned, at: 0), context: context(), now: F.at(0)).isEmpty)

        // Before the restart: results with the pinned key, a change to other (fired, in the outbox), back to
        // pinned, then a failed probe without a chain as the newest result.
        let before = enabled()
        var batch = WriteBatch()
        for (seconds, leaf) in [(0, pinned), (60, other), (120, pinned)] as [(Int64, CertificateRecord)] {
            let record = served(leaf, at: seconds)
            batch.probes.append(record)
            batch.alerts += before.evaluate(record, context: context(), now: F.at(seconds)).rows
        }
        batch.probes.append(F.down(at: F.at(180)))
        XCTAssertEqual(batch.alerts.map(\.kind), ["key_changed", "key_changed"])
        try await store.write(batch)

        // After the restart: the newest stored key (pinned) is the previous one; the firing key_changed row in the
        // outbox is not taken as still firing.
        let after = enabled()
        try await after.restore(from: store)
        XCTAssertTrue(after.firing().isEmpty)
        XCTAssertTrue(after.evaluate(served(pinned, at: 240), context: context(), now: F.at(240)).isEmpty)
        let restarted = enabled()
        try await restarted.restore(from: store)
        let changed = restarted.evaluate(served(other, at: 240), context: context(), now: F.at(240))
        XCTAssertEqual(F.events(changed, .keyChanged).map(\.state), [.firing])
        XCTAssertTrue(F.events(changed, .keyChanged)[0].message.contains("old pin \(pinned.spkiPin), new pin \(other.spkiPin)"))
    }
}
