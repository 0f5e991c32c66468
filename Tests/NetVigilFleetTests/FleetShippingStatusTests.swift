import XCTest
@testable import NetVigilFleet

/// The shipping lag becomes a `/healthz` warning past ten heartbeats, and only then.
final class FleetShippingStatusTests: XCTestCase {
    func testWarnsPastTenHeartbeats() {
        let status = FleetShippingStatus(heartbeat: .seconds(30))
        XCTAssertEqual(status.warningThreshold, 300)
        status.update(lagSeconds: 299)
        XCTAssertEqual(status.warnings(), [])
        status.update(lagSeconds: 301.5)
        XCTAssertEqual(status.warnings(), ["fleet shipping lag 301 s (over 10 × heartbeat, 300 s)"])
        status.update(lagSeconds: 0)
        XCTAssertEqual(status.warnings(), [])
    }

    func testUTCDaysAndDates() {
        XCTAssertEqual(FleetShipper.utcDay(milliseconds: 0), 0)
        XCTAssertEqual(FleetShipper.utcDay(milliseconds: 86_399_999), 0)
        XCTAssertEqual(FleetShipper.utcDay(milliseconds: 86_400_000), 1)
        XCTAssertEqual(FleetShipper.utcDay(milliseconds: -1), -1)
        XCTAssertEqual(FleetShipper.isoDate(day: FleetShipper.utcDay(milliseconds: 1_795_000_000_000)), "2026-11-18")
    }
}
