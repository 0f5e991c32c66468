import NetVigilStore
import XCTest
@testable import NetVigilFleet

/// The shipper's decisions without I/O: order of streams, catching up, idling, back-off, cursors.
final class ShippingPlanTests: XCTestCase {
    private let policy = ShippingPlan.Policy(batchRows: 100, idle: .seconds(1), minimumBackoff: .milliseconds(500),
                                             maximumBackoff: .seconds(30))

    func testStartsFromTheStoredCursorsAndShipsEachStreamInTurn() {
        var plan = ShippingPlan(cursors: [.probeResults: 41], policy: policy)
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 41, limit: 100))
        plan.acknowledged(.probeResults, through: 60, full: false)
        XCTAssertEqual(plan.cursors[.probeResults], 60)
        XCTAssertEqual(plan.next(), .ship(.reachabilityEvents, after: 0, limit: 100))
        plan.acknowledged(.reachabilityEvents, through: nil, full: false)
        XCTAssertEqual(plan.next(), .ship(.alertEvents, after: 0, limit: 100))
        plan.acknowledged(.alertEvents, through: nil, full: false)
        XCTAssertEqual(plan.next(), .idle(.seconds(1)))
        // After the pause every stream is polled again, from where it got to.
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 60, limit: 100))
    }

    func testAFullPageIsFollowedByMoreOfTheSameStreamBetweenTheOthers() {
        var plan = ShippingPlan(cursors: [:], policy: policy)
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 0, limit: 100))
        plan.acknowledged(.probeResults, through: 100, full: true)
        // The other streams get their turn, then probe results again: no idle while a backlog remains.
        XCTAssertEqual(plan.next(), .ship(.reachabilityEvents, after: 0, limit: 100))
        plan.acknowledged(.reachabilityEvents, through: nil, full: false)
        XCTAssertEqual(plan.next(), .ship(.alertEvents, after: 0, limit: 100))
        plan.acknowledged(.alertEvents, through: nil, full: false)
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 100, limit: 100))
        plan.acknowledged(.probeResults, through: 150, full: false)
        XCTAssertEqual(plan.next(), .idle(.seconds(1)))
    }

    func testFailuresBackOffExponentiallyUpToTheMaximumAndASuccessResets() {
        var plan = ShippingPlan(cursors: [:], policy: policy)
        var pauses: [Duration] = []
        for _ in 0..<9 {
            guard case .ship = plan.next() else { return XCTFail("expected a shipping step") }
            plan.failed()
            guard case .backoff(let pause) = plan.next() else { return XCTFail("expected a back-off") }
            pauses.append(pause)
        }
        XCTAssertEqual(pauses, [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                                .seconds(30), .seconds(30), .seconds(30)])
        // The same stream and cursor are retried: nothing is skipped by a failure.
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 0, limit: 100))
        plan.acknowledged(.probeResults, through: 7, full: false)
        XCTAssertEqual(plan.consecutiveFailures, 0)
        plan.failed()
        XCTAssertEqual(plan.next(), .backoff(.milliseconds(500)))
    }

    func testJitterAddsAtMostHalfTheBackOff() {
        var plan = ShippingPlan(cursors: [:], policy: policy)
        plan.failed()
        plan.failed()
        XCTAssertEqual(plan.backoff(jitter: 0), .seconds(1))
        XCTAssertEqual(plan.backoff(jitter: 0.5), .milliseconds(1_250))
        XCTAssertEqual(plan.backoff(jitter: 7), .milliseconds(1_500))
    }

    func testCursorsNeverMoveBack() {
        var plan = ShippingPlan(cursors: [.alertEvents: 10], policy: policy)
        plan.acknowledged(.alertEvents, through: 5, full: false)
        XCTAssertEqual(plan.cursors[.alertEvents], 10)
        plan.skipExpired(.alertEvents, through: 3)
        XCTAssertEqual(plan.cursors[.alertEvents], 10)
        plan.skipExpired(.alertEvents, through: 20)
        XCTAssertEqual(plan.cursors[.alertEvents], 20)
        XCTAssertEqual(plan.backoff(), .zero)
    }

    func testARestartedStreamShipsFromZeroAgain() {
        var plan = ShippingPlan(cursors: [.probeResults: 500], policy: policy)
        plan.restart(.probeResults)
        XCTAssertEqual(plan.next(), .ship(.probeResults, after: 0, limit: 100))
    }
}
