import NetVigilStore
import XCTest
@testable import NetVigilAgent

/// The hub's ring, cursors, resets, cap, and that publishers and cancelled readers never wait for each other.
final class EventHubTests: XCTestCase {
    private static func event(_ second: Int) -> AgentEvent {
        .reachability(ReachabilityEventRecord(
            time: Timestamp(milliseconds: 1_795_000_000_000 + Int64(second) * 1_000), target: "default",
            status: "NotReachable", statusCode: 0, flags: 0, flagNames: [], interface: nil, interfaceKind: nil,
            gateway: nil, source: nil, family: nil))
    }

    func testReaderGetsEventsInOrderThenWaitsForNewOnes() async throws {
        let hub = EventHub(capacity: 8)
        let subscription = try hub.subscribe()
        for second in 0..<3 { hub.publish(Self.event(second)) }
        var ids: [UInt64] = []
        for _ in 0..<3 {
            let delivery = await subscription.next()
            ids.append(try XCTUnwrap(delivery?.entry?.id))
        }
        XCTAssertEqual(ids, [1, 2, 3])
        async let waiting = subscription.next()
        try await Task.sleep(for: .milliseconds(50))
        hub.publish(Self.event(3))
        let fourth = await waiting
        XCTAssertEqual(fourth?.entry?.id, 4)
    }

    func testASlowReaderIsResetToTheNewestEventInsteadOfBuffering() async throws {
        let hub = EventHub(capacity: 4)
        let subscription = try hub.subscribe()
        for second in 0..<10 { hub.publish(Self.event(second)) }
        // Ids 1...6 were overwritten before the reader read them.
        let first = await subscription.next()
        XCTAssertEqual(first, .reset(missed: 6, lastID: 10))
        hub.publish(Self.event(10))
        let next = await subscription.next()
        XCTAssertEqual(next?.entry?.id, 11, "after a reset the reader continues live")
    }

    func testLastEventIDOlderThanTheRingStartsAtTheOldestRetained() async throws {
        let hub = EventHub(capacity: 4)
        for second in 0..<7 { hub.publish(Self.event(second)) }
        let subscription = try hub.subscribe(after: 1)
        let first = await subscription.next()
        XCTAssertEqual(first?.entry?.id, 4)
    }

    func testSubscribersAreCappedAndClosingFreesTheSlot() throws {
        let hub = EventHub(maxSubscribers: 2)
        let a = try hub.subscribe()
        let b = try hub.subscribe()
        XCTAssertThrowsError(try hub.subscribe()) { error in
            XCTAssertEqual("\(error)", "too many event subscribers (limit 2); try again later")
        }
        a.close()
        XCTAssertEqual(hub.subscriberCount, 1)
        XCTAssertNoThrow(try hub.subscribe())
        withExtendedLifetime(b) {}
    }

    /// A response that is never written drops its subscription without closing it: the slot must come back.
    func testAnAbandonedSubscriptionFreesItsSlot() throws {
        let hub = EventHub(maxSubscribers: 1)
        var abandoned: EventSubscription? = try hub.subscribe()
        XCTAssertNotNil(abandoned)
        abandoned = nil
        XCTAssertEqual(hub.subscriberCount, 0)
        XCTAssertNoThrow(try hub.subscribe())
    }

    func testInterruptWakesAnIdleReaderAndFinishEndsIt() async throws {
        let hub = EventHub()
        let subscription = try hub.subscribe()
        async let idle = subscription.next()
        try await Task.sleep(for: .milliseconds(20))
        subscription.interrupt()
        let woken = await idle
        XCTAssertEqual(woken, .idle)
        hub.publish(Self.event(0))
        hub.finish()
        let last = await subscription.next()
        XCTAssertEqual(last?.entry?.id, 1, "what was published before finish is still read")
        let end = await subscription.next()
        XCTAssertNil(end)
    }

    /// The deadlock was a publisher holding the hub lock while a cancelled reader's termination handler
    /// waited for it. Here 20,000 subscribe/cancel cycles race a publisher that never pauses; the test ends (it
    /// would hang on a lock-order inversion) and every cancelled slot is freed.
    func testCancellingReadersWhilePublishingNeverDeadlocks() async throws {
        let hub = EventHub(capacity: 64, maxSubscribers: 10_000)
        let event = Self.event(0)
        let publishing = Task.detached {
            while !Task.isCancelled { hub.publish(event) }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    for _ in 0..<400 {
                        guard let subscription = try? hub.subscribe() else { continue }
                        let reader = Task { while await subscription.next() != nil {} }
                        await Task.yield()
                        reader.cancel()
                        await reader.value
                    }
                }
            }
        }
        publishing.cancel()
        await publishing.value
        hub.publish(event)
        XCTAssertEqual(hub.subscriberCount, 0)
    }
}
