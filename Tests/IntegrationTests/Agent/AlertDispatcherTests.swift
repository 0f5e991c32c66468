import Foundation
import Logging
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

final class AlertDispatcherTests: XCTestCase {
    typealias F = AlertFixtures

    private let fastRetry = AlertRetry(initial: .milliseconds(50), max: .milliseconds(200))

    private func webhook(_ url: String, name: String = "pager") throws -> AlertSink {
        AlertSink(name: name, kind: .webhook(WebhookSink(url: try XCTUnwrap(URL(string: url)), timeout: .seconds(5),
                                                        headers: [AlertHeader(name: "X-Team", value: "ops")])))
    }

    private func exec(_ script: String, timeout: Duration = .seconds(10), name: String = "script") -> AlertSink {
        AlertSink(name: name, kind: .exec(ExecSink(command: [script, "--urgent"], executable: script, timeout: timeout)))
    }

    /// Engine rows for a firing pin mismatch and its resolution, for `sinks`.
    private func firingAndResolved(sinks: [String]) -> [AlertRecord] {
        let engine = AlertEngine(rules: AlertRules(), logger: LogRecorder().logger())
        let context = F.context(sinks: sinks)
        let now = Timestamp.now()
        var rows = engine.evaluate(F.mismatch(at: now, reportOnly: true), context: context, now: now).rows
        let later = now.adding(.milliseconds(1))
        rows += engine.evaluate(F.record(at: later), context: context, now: later).rows
        return rows
    }

    private func waitUntil(_ timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    func testWebhookIsRetriedAfterA500AndDeliveredInOrderWithIdempotencyKey() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try WebhookReceiver(directory: directory, statuses: [500, 200])
        defer { receiver.stop() }
        let store = try Store.open(path: directory.path("alerts.sqlite"))
        let rows = firingAndResolved(sinks: ["pager"])
        XCTAssertEqual(rows.count, 2)
        try await store.write(WriteBatch(alerts: rows))

        let logs = LogRecorder()
        let dispatcher = AlertDispatcher(
            store: store, configuration: AlertsSection(sinks: [try webhook(receiver.url)], retry: fastRetry),
            logger: logs.logger(), pollInterval: .milliseconds(200))
        let running = Task { try await dispatcher.run() }
        defer { running.cancel() }
        dispatcher.wake()
        let delivered = try await waitUntil { try await store.pendingAlertCount() == 0 }
        let remaining = try await store.alerts().filter { $0.state == .pending }
        XCTAssertTrue(delivered, "rows still pending: \(remaining)")

        let requests = receiver.requests
        XCTAssertEqual(requests.map(\.status), [500, 200, 200])
        XCTAssertEqual(requests.map { $0.json?["state"] as? String }, ["firing", "firing", "resolved"])
        XCTAssertEqual(requests.map { $0.header("Idempotency-Key") }, [rows[0].idempotencyKey, rows[0].idempotencyKey, rows[1].idempotencyKey])
        for (request, row) in zip(requests, [rows[0], rows[0], rows[1]]) {
            XCTAssertEqual(request.path, "/hook")
            XCTAssertEqual(request.header("Content-Type"), "application/json")
            XCTAssertEqual(request.header("X-Team"), "ops")
            XCTAssertEqual(request.body, row.payloadJSON)
            XCTAssertEqual(request.json?["idempotency_key"] as? String, request.header("Idempotency-Key"))
        }
        let stored = try await store.alerts()
        XCTAssertEqual(stored.map(\.state), [.delivered, .delivered])
        XCTAssertEqual(stored.map(\.attempts), [2, 1])
        XCTAssertNil(stored[0].lastError)
        XCTAssertTrue(logs.all.contains { $0.level == .error && $0.metadata["error"] == "webhook answered HTTP 500" })
        // Stops on cancellation (as on graceful shutdown).
        running.cancel()
        _ = try await running.value
    }

    func testExecSinkGetsTheJSONOnStdinAndEnvironmentAndIsRetriedUntilExitZero() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("notify.sh", """
            #!/bin/sh
            out="\(directory.url.path)"
            cat > "$out/stdin.json"
            env | grep '^NETVIGIL_' | sort > "$out/env.txt"
            echo "$@" > "$out/args.txt"
            if [ ! -e "$out/attempted" ]; then touch "$out/attempted"; echo "receiver busy" >&2; exit 3; fi
            exit 0
            """)
        chmod(script, 0o755)
        let store = try Store.open(path: directory.path("alerts.sqlite"))
        let rows = Array(firingAndResolved(sinks: ["script"]).prefix(1))
        try await store.write(WriteBatch(alerts: rows))
        let dispatcher = AlertDispatcher(store: store, configuration: AlertsSection(sinks: [exec(script)], retry: fastRetry),
                                         logger: LogRecorder().logger())
        let attempted1 = await dispatcher.deliverDue()
        XCTAssertEqual(attempted1, 1)
        var stored = try await store.alerts()
        XCTAssertEqual(stored[0].state, .pending)
        XCTAssertEqual(stored[0].attempts, 1)
        XCTAssertEqual(stored[0].lastError, "\(script) exited with status 3: receiver busy")
        XCTAssertGreaterThan(stored[0].nextAttemptAt, rows[0].nextAttemptAt)

        let retried = await dispatcher.deliverDue(now: .now().adding(.seconds(1)))
        XCTAssertEqual(retried, 1)
        stored = try await store.alerts()
        XCTAssertEqual(stored[0].state, .delivered)
        XCTAssertEqual(stored[0].attempts, 2)

        XCTAssertEqual(try String(contentsOfFile: directory.path("stdin.json"), encoding: .utf8), rows[0].payloadJSON + "\n")
        XCTAssertEqual(try String(contentsOfFile: directory.path("args.txt"), encoding: .utf8), "--urgent\n")
        let payload = try AlertPayload.decode(rows[0].payloadJSON)
        let env = try String(contentsOfFile: directory.path("env.txt"), encoding: .utf8)
        let variables = Dictionary(env.split(separator: "\n").map { line -> (String, String) in
            let parts = line.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }) { first, _ in first }
        XCTAssertEqual(variables["NETVIGIL_KIND"], "pin_mismatch")
        XCTAssertEqual(variables["NETVIGIL_STATE"], "firing")
        XCTAssertEqual(variables["NETVIGIL_TARGET"], "api")
        XCTAssertEqual(variables["NETVIGIL_URL"], "https://api.example.com:8443/health")
        XCTAssertEqual(variables["NETVIGIL_TIME"], payload.time.rfc3339)
        XCTAssertEqual(variables["NETVIGIL_MESSAGE"], payload.message)
        XCTAssertEqual(variables["NETVIGIL_IDEMPOTENCY_KEY"], rows[0].idempotencyKey)
    }

    func testExecSinkIsKilledAfterItsTimeoutWithItsChildren() async throws {
        let directory = try TemporaryDirectory()
        let marker = directory.path("survived")
        let script = try directory.write("slow.sh", "#!/bin/sh\n(sleep 3; touch \(marker)) &\nsleep 30\n")
        chmod(script, 0o755)
        let store = try Store.open(path: directory.path("alerts.sqlite"))
        try await store.write(WriteBatch(alerts: Array(firingAndResolved(sinks: ["script"]).prefix(1))))
        let dispatcher = AlertDispatcher(store: store, configuration: AlertsSection(sinks: [exec(script, timeout: .milliseconds(300))]),
                                         logger: LogRecorder().logger())
        let start = ContinuousClock.now
        let attempted2 = await dispatcher.deliverDue()
        XCTAssertEqual(attempted2, 1)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3))
        let stored = try await store.alerts()
        XCTAssertEqual(stored[0].state, .pending)
        XCTAssertEqual(stored[0].lastError, "\(script) killed after 300ms")
        try await Task.sleep(for: .seconds(4))
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the sink's background child outlived the timeout")
    }

    func testPendingRowsOfAGoneProcessAreDeliveredByTheNextOne() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("alerts.sqlite")
        let port = ProcessRunner.freePort()
        let rows = firingAndResolved(sinks: ["pager", "backup"])
        do {
            // First daemon: the receiver is down, deliveries fail and stay pending.
            let store = try Store.open(path: path)
            try await store.write(WriteBatch(probes: [F.mismatch(at: .now(), reportOnly: true)], alerts: rows))
            let sinks = [try webhook("http://127.0.0.1:\(port)/hook"), try webhook("http://127.0.0.1:\(port)/hook", name: "backup")]
            let dispatcher = AlertDispatcher(store: store, configuration: AlertsSection(sinks: sinks, retry: fastRetry),
                                             logger: LogRecorder().logger())
            let attempted3 = await dispatcher.deliverDue()
            XCTAssertEqual(attempted3, 2)
            let stored = try await store.alerts()
            XCTAssertEqual(stored.map(\.state), [.pending, .pending, .pending, .pending])
            XCTAssertTrue(stored[0].lastError?.contains("refused") ?? false, stored[0].lastError ?? "nil")
        }
        // The receiver comes back; a new store and dispatcher on the same file deliver everything once.
        let receiver = try WebhookReceiver(directory: directory, statuses: [200], port: port)
        defer { receiver.stop() }
        let store = try Store.open(path: path)
        let sinks = [try webhook(receiver.url), try webhook(receiver.url, name: "backup")]
        let dispatcher = AlertDispatcher(store: store, configuration: AlertsSection(sinks: sinks, retry: fastRetry),
                                         logger: LogRecorder().logger(), pollInterval: .milliseconds(100))
        let running = Task { try await dispatcher.run() }
        defer { running.cancel() }
        let delivered = try await waitUntil { try await store.pendingAlertCount() == 0 }
        XCTAssertTrue(delivered)
        let keys = receiver.requests.compactMap { $0.header("Idempotency-Key") }
        XCTAssertEqual(keys.count, 4)
        XCTAssertEqual(Set(keys), Set(rows.map(\.idempotencyKey)))
    }

    func testRowsForAnUnconfiguredSinkStayPending() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("alerts.sqlite"))
        try await store.write(WriteBatch(alerts: Array(firingAndResolved(sinks: ["gone"]).prefix(1))))
        let dispatcher = AlertDispatcher(store: store, configuration: AlertsSection(sinks: [], retry: fastRetry),
                                         logger: LogRecorder().logger())
        let attempted4 = await dispatcher.deliverDue()
        XCTAssertEqual(attempted4, 1)
        let stored = try await store.alerts()
        XCTAssertEqual(stored[0].state, .pending)
        XCTAssertEqual(stored[0].lastError, "sink \"gone\" is not configured (removed from alerts.sinks?); kept pending")
        let count = try await store.pendingAlertCount()
        XCTAssertEqual(count, 1)
    }
}
