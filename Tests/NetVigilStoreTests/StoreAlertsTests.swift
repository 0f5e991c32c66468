import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

final class StoreAlertsTests: XCTestCase {
    private func row(_ n: Int, at seconds: Int64, sink: String = "pager", target: String = "api", kind: String = "pin_mismatch",
                     state: String = "firing", due: Int64? = nil) -> AlertRecord {
        let time = Fixtures.base.adding(.seconds(seconds))
        let payload = "{\"kind\":\"\(kind)\",\"state\":\"\(state)\",\"message\":\"m\(n)\",\"since\":\"\(Fixtures.base.rfc3339)\"}"
        return AlertRecord(time: time, kind: kind, target: target, sink: sink, payloadJSON: payload,
                           nextAttemptAt: Fixtures.base.adding(.seconds(due ?? seconds)), idempotencyKey: "key-\(n)")
    }

    func testDueRowsOldestFirstLimitedAndOrderedPerSinkTargetKind() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("a.sqlite"))
        try await store.write(WriteBatch(alerts: [
            row(1, at: 10, sink: "pager"),
            row(2, at: 10, sink: "script"),
            row(3, at: 20, sink: "pager", state: "resolved"),   // waits for key-1 (same sink, target, kind)
            row(4, at: 5, sink: "pager", target: "db"),
            row(5, at: 30, sink: "pager", target: "db", kind: "target_down", due: 1_000),  // not due yet
        ]))
        let now = Fixtures.base.adding(.seconds(100))
        var due = try await store.dueAlerts(now: now, limit: 10)
        XCTAssertEqual(due.map(\.idempotencyKey), ["key-4", "key-1", "key-2"])
        let value1 = try await store.dueAlerts(now: now, limit: 2).map(\.idempotencyKey)
        XCTAssertEqual(value1, ["key-4", "key-1"])
        let value2 = try await store.pendingAlertCount()
        XCTAssertEqual(value2, 5)
        let value3 = try await store.nextAlertAttempt()
        XCTAssertEqual(value3, Fixtures.base.adding(.seconds(5)))

        // Delivering key-1 releases key-3; a retry pushes key-2 into the future.
        let first = try XCTUnwrap(due.first { $0.idempotencyKey == "key-1" }?.id)
        let value4 = try await store.markAlertDelivered(id: first, at: now)
        XCTAssertTrue(value4)
        let value5 = try await store.markAlertDelivered(id: first, at: now)
        XCTAssertFalse(value5, "only pending rows are marked")
        let second = try XCTUnwrap(due.first { $0.idempotencyKey == "key-2" }?.id)
        let value6 = try await store.scheduleAlertRetry(id: second, nextAttempt: now.adding(.seconds(60)), error: "webhook answered HTTP 500")
        XCTAssertTrue(value6)
        due = try await store.dueAlerts(now: now, limit: 10)
        XCTAssertEqual(due.map(\.idempotencyKey), ["key-4", "key-3"])

        let delivered = try await store.alert(id: first)
        XCTAssertEqual(delivered?.state, .delivered)
        XCTAssertEqual(delivered?.deliveredAt, now)
        XCTAssertEqual(delivered?.attempts, 1)
        let retried = try await store.alert(id: second)
        XCTAssertEqual(retried?.state, .pending)
        XCTAssertEqual(retried?.attempts, 1)
        XCTAssertEqual(retried?.lastError, "webhook answered HTTP 500")
        XCTAssertEqual(retried?.nextAttemptAt, now.adding(.seconds(60)))
        let value7 = try await store.pendingAlertCount()
        XCTAssertEqual(value7, 4)
        let value8 = try await store.dueAlerts(now: now.adding(.seconds(60)), limit: 10).contains { $0.idempotencyKey == "key-2" }
        XCTAssertTrue(value8)
    }

    func testLatestAlertStatePerTargetAndKind() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("a.sqlite"))
        let value9 = try await store.latestAlerts()
        XCTAssertEqual(value9, [])
        try await store.write(WriteBatch(alerts: [
            row(1, at: 10), row(2, at: 10, sink: "script"),
            row(3, at: 50, state: "resolved"),
            row(4, at: 60, kind: "target_down"),
            row(5, at: 70, target: "db"), row(6, at: 80, target: "db"),
        ]))
        let latest = try await store.latestAlerts()
        XCTAssertEqual(latest.map { "\($0.target)/\($0.kind)=\($0.state)" }, ["api/pin_mismatch=resolved", "api/target_down=firing", "db/pin_mismatch=firing"])
        let db = try XCTUnwrap(latest.last)
        XCTAssertEqual(db.time, Fixtures.base.adding(.seconds(80)))
        XCTAssertEqual(db.message, "m6")
        XCTAssertEqual(db.since, Fixtures.base)
        // Delivery state does not matter: a delivered firing row is still firing.
        let due = try await store.dueAlerts(now: Fixtures.base.adding(.seconds(1_000)))
        for alert in due { try await store.markAlertDelivered(id: alert.id!, at: .now()) }
        let value10 = try await store.latestAlerts().map(\.state)
        XCTAssertEqual(value10, ["resolved", "firing", "firing"])
    }

    func testLatestRowsOfOneSinkPerTargetAndKind() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("a.sqlite"))
        try await store.write(WriteBatch(alerts: [
            row(1, at: 10, sink: "am"),
            row(2, at: 20, sink: "am", state: "resolved"),
            row(3, at: 30, sink: "am"),                              // the newest of (api, pin_mismatch) for am
            row(4, at: 40, sink: "pager"),                           // another sink
            row(5, at: 15, sink: "am", target: "db", kind: "target_down"),
        ]))
        let latest = try await store.latestAlerts(sink: "am")
        XCTAssertEqual(latest.map(\.idempotencyKey), ["key-3", "key-5"])
        XCTAssertEqual(latest.map(\.sink), ["am", "am"])
        let none = try await store.latestAlerts(sink: "nowhere")
        XCTAssertEqual(none, [])
    }

    func testPendingRowsSurviveReopening() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("a.sqlite")
        do {
            let store = try Store.open(path: path)
            try await store.write(WriteBatch(probes: [Fixtures.probe(1)], alerts: [row(1, at: 1), row(2, at: 2, sink: "script")]))
        }
        let reopened = try Store.open(path: path)
        let value11 = try await reopened.dueAlerts(now: .now()).map(\.idempotencyKey)
        XCTAssertEqual(value11, ["key-1", "key-2"])
    }
}
