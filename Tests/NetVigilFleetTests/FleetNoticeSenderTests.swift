import Foundation
import NetVigilAgent
import XCTest
@testable import NetVigilFleet

/// How long a hub that hangs mid-delivery may hold its outbox rows: never less than a delivery may take.
final class FleetNoticeSenderTests: XCTestCase {
    func testTheLockBoundIsTheLongestSinkTimeoutAndTenSeconds() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:9/hook"))
        let sinks = [AlertSink(name: "fast", kind: .webhook(WebhookSink(url: url, timeout: .seconds(3)))),
                     AlertSink(name: "slow", kind: .webhook(WebhookSink(url: url, timeout: .seconds(45))))]
        XCTAssertEqual(FleetNoticeSender.lockBound(sinks: sinks), .seconds(55))
        XCTAssertEqual(FleetNoticeSender.lockBound(sinks: [sinks[0]]), .seconds(13))
        // No sink: nothing is delivered, the default timeout's bound.
        XCTAssertEqual(FleetNoticeSender.lockBound(sinks: []), .seconds(20))
    }
}
