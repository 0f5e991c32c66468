import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// The `alertmanager:` sink against a real Alertmanager (Debian `prometheus-alertmanager` on loopback, a webhook
/// receiver behind it): outbox rows become Alertmanager alerts, Alertmanager notifies, silences hold, an outage
/// only delays, and firing alerts are re-sent so Alertmanager does not resolve them on its own.
final class AlertmanagerSinkTests: XCTestCase {
    typealias F = AlertFixtures

    private var directory: TemporaryDirectory!
    private var alertmanager: AlertmanagerProcess!
    private var store: Store!
    private var running: Task<Void, any Error>?

    override func setUp() async throws {
        guard AlertmanagerProcess.isInstalled else {
            throw XCTSkip("prometheus-alertmanager missing: make test installs the Debian package")
        }
        directory = try TemporaryDirectory()
        alertmanager = try AlertmanagerProcess(directory: directory) { receiver in
            """
            route:
              receiver: hook
              group_by: [alertname, target]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h
            receivers:
              - name: hook
                webhook_configs:
                  - url: \(receiver)/hook
                    send_resolved: true
            """
        }
        store = try Store.open(path: directory.path("alerts.sqlite"))
    }

    override func tearDown() async throws {
        running?.cancel()
        _ = try? await running?.value
        running = nil
        alertmanager = nil
        store = nil
        directory = nil
    }

    /// An engine and a running dispatcher with one Alertmanager sink `am`.
    private func start(rules: AlertRules = AlertRules(), resendInterval: Duration = .seconds(60))
        throws -> (AlertEngine, AlertDispatcher) {
        let engine = AlertEngine(rules: rules, logger: LogRecorder().logger())
        let sink = AlertmanagerSink(url: try XCTUnwrap(URL(string: alertmanager.url)), timeout: .seconds(5),
                                    headers: [AlertHeader(name: "X-Team", value: "ops")], labels: ["team": "payments"],
                                    resendInterval: resendInterval)
        let dispatcher = AlertDispatcher(
            store: store,
            configuration: AlertsSection(sinks: [AlertSink(name: "am", kind: .alertmanager(sink))],
                                         retry: AlertRetry(initial: .milliseconds(100), max: .milliseconds(500))),
            logger: LogRecorder().logger(), pollInterval: .milliseconds(200), firing: { engine.firing() })
        running = Task { try await dispatcher.run() }
        return (engine, dispatcher)
    }

    /// Feeds one probe result for `target` and commits the alert rows it raises.
    @discardableResult
    private func probe(_ engine: AlertEngine, _ dispatcher: AlertDispatcher, target: String = "api", mismatch: Bool,
                       at time: Timestamp = .now()) async throws -> [AlertRecord] {
        let record = mismatch ? F.mismatch(at: time, reportOnly: true) : F.record(at: time)
        let rows = engine.evaluate(record, context: F.context(target: target, sinks: ["am"]), now: time).rows
        try await store.write(WriteBatch(alerts: rows))
        dispatcher.wake()
        return rows
    }

    private func waitFor(_ what: String, timeout: Duration = .seconds(30),
                         _ condition: ([AlertmanagerProcess.Notification]) throws -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try condition(try alertmanager.notifications()) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        XCTFail("no \(what) within \(timeout): \(try alertmanager.notifications().map(\.body)); log: \(alertmanager.log.suffix(1_500))")
    }

    private func waitUntilDelivered() async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while try await store.pendingAlertCount() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let pending = try await store.alerts().filter { $0.state == .pending }
        XCTAssertEqual(pending.count, 0, "still pending: \(pending.map { "\($0.lastError ?? "")" })")
    }

    func testFiringThenResolvedBecomeAlertmanagerNotificationsWithLabelsAndAnnotations() async throws {
        let (engine, dispatcher) = try start()
        try await probe(engine, dispatcher, mismatch: true)
        try await waitFor("firing notification") { $0.contains { $0.status == "firing" } }
        let firing = try XCTUnwrap(try alertmanager.notifications().first)
        XCTAssertEqual(firing.path, "/hook")
        let alert = try XCTUnwrap((firing.body["alerts"] as? [[String: Any]])?.first)
        XCTAssertEqual(alert["labels"] as? [String: String], [
            "alertname": "NetvigilPinMismatch", "target": "api", "instance": AlertmanagerAlert.hostName,
            "severity": "critical", "team": "payments", "endpoint": "https://api.example.com:8443/health",
        ])
        let annotations = try XCTUnwrap(alert["annotations"] as? [String: String])
        XCTAssertTrue(annotations["summary"]?.contains("api") == true, "\(annotations)")
        XCTAssertTrue(annotations["description"]?.contains("pin mismatch for target api") == true, "\(annotations)")
        XCTAssertEqual(annotations["url"], "https://api.example.com:8443/health")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(annotations["report"]).utf8)) as? [String: Any])
        XCTAssertEqual(report["known-pins"] as? [String], [PinValidationReport.rfc7469Pin(F.certificates.pinned.spkiPin)])
        XCTAssertEqual(report["noted-hostname"] as? String, "*.example.com")
        XCTAssertEqual((report["served-certificate-chain"] as? [String])?.count, 1)
        try await waitUntilDelivered()

        try await probe(engine, dispatcher, mismatch: false)
        try await waitFor("resolved notification") { $0.contains { $0.status == "resolved" } }
        try await waitUntilDelivered()
        let received = try alertmanager.notifications()
        XCTAssertEqual(received.map(\.status), ["firing", "resolved"])
        XCTAssertEqual(received.last?.alertLabels.first?["alertname"], "NetvigilPinMismatch")
        XCTAssertEqual(try alertmanager.alerts().count, 0, "resolved alerts are no longer active")
    }

    func testASilenceForATargetSuppressesItsNotification() async throws {
        // The maintenance window: an operator silences target api before working on it.
        let silence = try alertmanager.amtool(["silence", "add", "target=api", "--comment=maintenance window",
                                               "--author=ops", "--duration=1h"])
        XCTAssertEqual(silence.status, 0, silence.stdout + silence.stderr)
        let (engine, dispatcher) = try start()
        try await probe(engine, dispatcher, target: "api", mismatch: true)
        try await probe(engine, dispatcher, target: "db", mismatch: true)
        try await waitFor("db notification") { $0.contains { $0.alertLabels.contains { $0["target"] == "db" } } }
        try await waitUntilDelivered()
        try await Task.sleep(for: .seconds(3))  // group_wait and group_interval are 1 s: api would have come by now
        let targets = try alertmanager.notifications().flatMap(\.alertLabels).compactMap { $0["target"] }
        XCTAssertEqual(targets, ["db"])
        // Alertmanager has the alert, held by the silence.
        let held = try XCTUnwrap(try alertmanager.alerts().first { ($0["labels"] as? [String: String])?["target"] == "api" })
        let status = try XCTUnwrap(held["status"] as? [String: Any])
        XCTAssertEqual(status["state"] as? String, "suppressed")
        XCTAssertEqual((status["silencedBy"] as? [String])?.count, 1)
    }

    func testAnAlertRaisedWhileAlertmanagerIsDownIsDeliveredWhenItReturns() async throws {
        alertmanager.stop()
        let (engine, dispatcher) = try start()
        let rows = try await probe(engine, dispatcher, mismatch: true)
        XCTAssertEqual(rows.count, 1)
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        var stored = try await store.alerts()
        while stored.first.map({ $0.attempts < 3 }) ?? true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            stored = try await store.alerts()
        }
        XCTAssertEqual(stored.map(\.state), [.pending])
        XCTAssertGreaterThanOrEqual(stored.first?.attempts ?? 0, 3)
        XCTAssertTrue(stored.first?.lastError?.hasPrefix("Alertmanager failed") == true, "\(stored)")
        XCTAssertTrue(try alertmanager.notifications().isEmpty)

        try alertmanager.start()
        try await waitFor("firing notification after the outage") { $0.contains { $0.status == "firing" } }
        try await waitUntilDelivered()
        XCTAssertEqual(try alertmanager.notifications().first?.alertLabels.first?["alertname"], "NetvigilPinMismatch")
    }

    func testFiringAlertsAreResentBeforeTheirEndsAtAndExpireOnceTheyStopFiring() async throws {
        var rules = AlertRules()
        rules[.pinMismatch].sendResolved = false
        let (engine, dispatcher) = try start(rules: rules, resendInterval: .seconds(1))
        try await probe(engine, dispatcher, mismatch: true)
        try await waitFor("firing notification") { $0.contains { $0.status == "firing" } }
        try await waitUntilDelivered()
        // One send is valid for 3 × resend_interval = 3 s; after 7 s the alert is active only because it was re-sent.
        try await Task.sleep(for: .seconds(7))
        let active = try alertmanager.alerts()
        XCTAssertEqual(active.count, 1)
        XCTAssertEqual((active.first?["status"] as? [String: Any])?["state"] as? String, "active")
        let endsAt = try XCTUnwrap((active.first?["endsAt"] as? String).flatMap { Timestamp.parse($0) })
        XCTAssertGreaterThan(endsAt, .now())
        XCTAssertEqual(try alertmanager.notifications().map(\.status), ["firing"], "a re-send is no new notification")
        let storedRows = try await store.alerts()
        XCTAssertEqual(storedRows.count, 1, "re-sends add no outbox rows")

        // It stops firing without a resolved notice (send_resolved: false): no more re-sends, so Alertmanager
        // resolves it when its endsAt passes.
        let resolvedRows = try await probe(engine, dispatcher, mismatch: false)
        XCTAssertEqual(resolvedRows, [])
        XCTAssertEqual(engine.firing(), [])
        try await waitFor("resolved notification once endsAt passed", timeout: .seconds(20)) {
            $0.contains { $0.status == "resolved" }
        }
    }
}
