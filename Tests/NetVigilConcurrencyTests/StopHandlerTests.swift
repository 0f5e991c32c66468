import ServiceLifecycle
import ServiceLifecycleTestKit
import XCTest
import NetVigilConcurrency

/// `withStopHandler`: graceful shutdown and cancellation both tell the operation to stop; it still drains.
final class StopHandlerTests: XCTestCase {
    func testGracefulShutdownCallsOnStopAndTheOperationFinishesItsWork() async {
        let waker = Waker()
        let stopped = SharedValue(false)
        let drained = await testGracefulShutdown { trigger in
            let task = Task {
                await withStopHandler {
                    while !stopped.value { await waker.wait() }
                    return "drained"
                } onStop: {
                    stopped.update { $0 = true }
                    waker.wake()
                }
            }
            try? await Task.sleep(for: .milliseconds(50))
            trigger.triggerGracefulShutdown()
            return await task.value
        }
        XCTAssertEqual(drained, "drained")
    }

    func testCancellationCallsOnStop() async {
        let calls = SharedValue(0)
        let waker = Waker()
        let task = Task {
            await withStopHandler {
                // A drain loop ignores cancellation itself: only onStop ends it.
                while calls.value == 0 { await waker.wait() }
            } onStop: {
                calls.update { $0 += 1 }
                waker.wake()
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value
        XCTAssertEqual(calls.value, 1)
    }
}
