import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// The writer's bounded queue: the oldest probe and reachability rows go first, alert rows never.
final class WriteQueueTests: XCTestCase {
    private static func alert(_ key: String) -> AlertRecord {
        AlertRecord(time: .now(), kind: "target_down", target: "t", sink: "hook", payloadJSON: "{}",
                    nextAttemptAt: .now(), idempotencyKey: key)
    }

    func testOverflowDropsTheOldestRowsButKeepsAlerts() {
        var queue = WriteQueue(maxRows: 4)
        XCTAssertEqual(queue.append(.init(batch: WriteBatch(probes: [Fixtures.probe(0)], alerts: [Self.alert("a")]))), 0)
        XCTAssertEqual(queue.append(.init(batch: WriteBatch(probes: [Fixtures.probe(1)]))), 0)
        XCTAssertEqual(queue.append(.init(batch: WriteBatch(reachabilityEvents: [Fixtures.reachability(2)]))), 0)
        // Five rows: the oldest droppable one (probe 0) goes; its alert stays.
        XCTAssertEqual(queue.append(.init(batch: WriteBatch(probes: [Fixtures.probe(3)]))), 1)
        XCTAssertEqual(queue.rows, 4)
        XCTAssertEqual(queue.droppedRows, 1)
        XCTAssertEqual(queue.alerts.map(\.idempotencyKey), ["a"])
        XCTAssertEqual(queue.items.first?.batch.probes, [])
        XCTAssertEqual(queue.items.flatMap(\.batch.probes).map(\.time), [Fixtures.probe(1).time, Fixtures.probe(3).time])
    }

    func testAQueueOfAlertsOnlyIsNeverTrimmed() {
        var queue = WriteQueue(maxRows: 2)
        for key in ["a", "b", "c"] { queue.append(.init(batch: WriteBatch(alerts: [Self.alert(key)]))) }
        XCTAssertEqual(queue.rows, 3)
        XCTAssertEqual(queue.droppedRows, 0)
    }

    func testTakenItemsPutBackKeepTheirPlaceAndQueuedAlertsCanBeUpdated() {
        var queue = WriteQueue(maxRows: 100)
        queue.append(.init(batch: WriteBatch(probes: [Fixtures.probe(0)])))
        queue.append(.init(batch: WriteBatch(alerts: [Self.alert("k")])))
        queue.append(.init(batch: WriteBatch(probes: [Fixtures.probe(2)])))
        let taken = queue.take(maxRows: 2)
        XCTAssertEqual(taken.count, 2)
        XCTAssertEqual(queue.rows, 1)
        queue.putBack(taken)
        XCTAssertEqual(queue.rows, 3)
        XCTAssertEqual(queue.items.first?.batch.probes.first?.time, Fixtures.probe(0).time)
        XCTAssertTrue(queue.updateAlert(idempotencyKey: "k") { $0.state = .delivered })
        XCTAssertEqual(queue.alerts.first?.state, .delivered)
        XCTAssertFalse(queue.updateAlert(idempotencyKey: "missing") { $0.state = .delivered })
    }
}
