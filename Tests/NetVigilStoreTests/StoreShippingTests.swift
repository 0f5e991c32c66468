import Foundation
import GRDB
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// What the fleet shipper reads from the local store: pages in id order as JSON, a cursor that survives reopening
/// and never moves back, and rows retention deleted before they were shipped, counted.
final class StoreShippingTests: XCTestCase {
    func testPagesInIdOrderWithTheBacklogBehind() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("s.sqlite"))
        try await store.write(WriteBatch(probes: (1...5).map { Fixtures.probe($0, ok: $0 != 3) },
                                         reachabilityEvents: [Fixtures.reachability(1)]))
        let cursors = try await store.shippingCursors()
        XCTAssertEqual(cursors, [.probeResults: 0, .reachabilityEvents: 0, .alertEvents: 0])
        let page = try await store.shippingPage(.probeResults, after: 0, limit: 2)
        XCTAssertEqual(page.rows.map(\.sequence), [1, 2])
        XCTAssertEqual(page.remaining, 3)
        XCTAssertEqual(page.expired, 0)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(page.jsonArray.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 2)
        XCTAssertEqual(objects[0]["seq"] as? Int, 1)
        XCTAssertEqual(objects[0]["time_ms"] as? Int64, Fixtures.base.milliseconds + 1_000)
        XCTAssertEqual(objects[0]["target"] as? String, "api")
        XCTAssertEqual(objects[0]["outcome"] as? String, "ok")
        XCTAssertEqual(objects[0]["total_ms"] as? Double, 4.886)
        XCTAssertEqual((objects[0]["served_chain"] as? String)?.split(separator: ":").count, 3)
        let failed = try await store.shippingPage(.probeResults, after: 2, limit: 1)
        let failedObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(failed.jsonArray.utf8)) as? [[String: Any]]).first
        XCTAssertEqual(failedObject?["error_kind"] as? String, "status")
        XCTAssertEqual(failedObject?["details"] as? String, "{\"body\":\"down \\\"now\\\"\"}")
        let events = try await store.shippingPage(.reachabilityEvents, after: 0, limit: 10)
        XCTAssertEqual(events.rows.count, 1)
        XCTAssertEqual(events.remaining, 0)
        let oldest = try await store.oldestUnshippedTime(.probeResults, after: 2)
        XCTAssertEqual(oldest?.milliseconds, Fixtures.base.milliseconds + 3_000)
        let none = try await store.oldestUnshippedTime(.probeResults, after: 5)
        XCTAssertNil(none)
    }

    func testTheCursorSurvivesReopeningAndNeverMovesBack() async throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try Store.open(path: directory.path("s.sqlite"))
            try await store.setShippingCursor(.alertEvents, to: 9)
            try await store.setShippingCursor(.alertEvents, to: 4)
        }
        let reopened = try Store.open(path: directory.path("s.sqlite"))
        let cursors = try await reopened.shippingCursors()
        XCTAssertEqual(cursors[.alertEvents], 9)
    }

    func testRowsRetentionDeletedBeforeShippingAreCounted() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("s.sqlite"))
        try await store.write(WriteBatch(probes: (1...10).map { Fixtures.probe($0) }))
        _ = try await store.prune(olderThan: Fixtures.base.adding(.seconds(5)))
        let page = try await store.shippingPage(.probeResults, after: 2, limit: 100)
        XCTAssertEqual(page.expired, 2, "ids 3 and 4 were never shipped and are gone")
        XCTAssertEqual(page.rows.map(\.sequence), Array(5...10))
        let caughtUp = try await store.shippingPage(.probeResults, after: 4, limit: 100)
        XCTAssertEqual(caughtUp.expired, 0)
    }

    func testIdsThatRestartBelowTheCursorAreNoticed() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("s.sqlite"))
        try await store.write(WriteBatch(probes: (1...3).map { Fixtures.probe($0) }))
        try await store.setShippingCursor(.probeResults, to: 3)
        _ = try await store.prune(olderThan: Fixtures.base.adding(.seconds(100)))
        try await store.write(WriteBatch(probes: [Fixtures.probe(200)]))
        let page = try await store.shippingPage(.probeResults, after: 3, limit: 10)
        XCTAssertTrue(page.restarted)
        XCTAssertEqual(page.expired, 0)
        try await store.resetShippingCursor(.probeResults)
        let cursors = try await store.shippingCursors()
        XCTAssertEqual(cursors[.probeResults], 0)
        let again = try await store.shippingPage(.probeResults, after: 0, limit: 10)
        XCTAssertEqual(again.rows.map(\.sequence), [1])
        XCTAssertFalse(again.restarted)
    }
}
