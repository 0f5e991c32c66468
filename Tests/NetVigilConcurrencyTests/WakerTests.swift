import XCTest
import NetVigilConcurrency

/// The wake-up primitive: kept wakes, broadcast, cancellation, deadlines.
final class WakerTests: XCTestCase {
    func testWakeBeforeWaitIsKeptOnce() async {
        let waker = Waker()
        waker.wake()
        waker.wake()
        let woken = await waker.wait()
        XCTAssertTrue(woken)
        // Two wakes while nobody waited are one kept wake: the next wait lasts until its deadline.
        let secondWoken = await waker.sleep(until: .now + .milliseconds(100))
        XCTAssertFalse(secondWoken)
    }

    func testWakeResumesEveryWaiter() async {
        let waker = Waker()
        let started = SharedValue(0)
        let waiters = (0..<5).map { _ in
            Task { () -> Bool in
                started.update { $0 += 1 }
                return await waker.wait()
            }
        }
        while started.value < 5 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(50))
        waker.wake()
        for waiter in waiters {
            let woken = await waiter.value
            XCTAssertTrue(woken)
        }
    }

    func testCancelledWaitReturnsFalseAndLeavesNoWaiterBehind() async {
        let waker = Waker()
        let waiter = Task { await waker.wait() }
        try? await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        let woken = await waiter.value
        XCTAssertFalse(woken)
        // The cancelled waiter took no wake: this one is kept for the next wait.
        waker.wake()
        let next = await waker.wait()
        XCTAssertTrue(next)
    }

    func testWaitInAnAlreadyCancelledTaskReturnsAtOnce() async {
        let waker = Waker()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await waker.wait()
        }
        let woken = await waiter.value
        XCTAssertFalse(woken)
    }

    func testSleepEndsAtTheDeadlineOrAtAWake() async {
        let waker = Waker()
        let clock = ContinuousClock()
        let start = clock.now
        let timedOut = await waker.sleep(until: start + .milliseconds(100))
        XCTAssertFalse(timedOut)
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(100))

        let sleeper = Task { await waker.sleep(until: .now + .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        let wokenAt = clock.now
        waker.wake()
        let woken = await sleeper.value
        XCTAssertTrue(woken)
        XCTAssertLessThan(clock.now - wokenAt, .seconds(5))
    }

    func testSleepWithAKeptWakeReturnsAtOnce() async {
        let waker = Waker()
        waker.wake()
        let woken = await waker.sleep(until: .now + .seconds(60))
        XCTAssertTrue(woken)
    }

    func testASleepEndedByItsDeadlineOrCancellationLeavesNoWaiterBehind() async {
        let waker = Waker()
        let timedOut = await waker.sleep(until: .now + .milliseconds(20))
        XCTAssertFalse(timedOut)
        let cancelled = Task { await waker.sleep(until: .now + .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        cancelled.cancel()
        let cancelledResult = await cancelled.value
        XCTAssertFalse(cancelledResult)
        XCTAssertLessThan(clock.now - cancelledAt, .seconds(5), "a cancelled sleep ends at once")
        // Neither left a waiter that would swallow this wake: it is kept for the next sleep.
        waker.wake()
        let kept = await waker.sleep(until: .now + .seconds(60))
        XCTAssertTrue(kept)
    }

    func testManyShortSleepsOfOneLoopEachEndAtTheirDeadline() async {
        let waker = Waker()
        let clock = ContinuousClock()
        let start = clock.now
        for round in 1...50 {
            let timedOut = await waker.sleep(until: start + .milliseconds(2 * round))
            XCTAssertFalse(timedOut)
        }
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(100))
    }
}
