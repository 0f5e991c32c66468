import XCTest
import NetVigilConcurrency

/// The counting semaphore: the bound, first come first served, cancellation.
final class AsyncSemaphoreTests: XCTestCase {
    func testNeverMoreHoldersThanPermits() async throws {
        let semaphore = AsyncSemaphore(value: 3)
        let holding = SharedValue(0)
        let most = SharedValue(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await semaphore.acquire()
                    let now = holding.update { value -> Int in
                        value += 1
                        return value
                    }
                    most.update { $0 = max($0, now) }
                    try await Task.sleep(for: .milliseconds(5))
                    holding.update { $0 -= 1 }
                    semaphore.release()
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(most.value, 3)
    }

    func testWaitersGetPermitsInArrivalOrder() async throws {
        let semaphore = AsyncSemaphore(value: 1)
        try await semaphore.acquire()
        let order = SharedValue<[Int]>([])
        var waiters: [Task<Void, Error>] = []
        for index in 0..<5 {
            waiters.append(Task {
                try await semaphore.acquire()
                order.update { $0.append(index) }
                semaphore.release()
            })
            // Let this waiter queue up before the next one arrives.
            try await Task.sleep(for: .milliseconds(20))
        }
        semaphore.release()
        for waiter in waiters { try await waiter.value }
        XCTAssertEqual(order.value, [0, 1, 2, 3, 4])
    }

    func testCancelledWaiterThrowsAndGivesUpItsPlace() async throws {
        let semaphore = AsyncSemaphore(value: 1)
        try await semaphore.acquire()
        let cancelled = Task { try await semaphore.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        do {
            try await cancelled.value
            XCTFail("a cancelled waiter got a permit")
        } catch is CancellationError {}
        // The permit goes to the next live waiter, not to the cancelled one.
        let next = Task { try await semaphore.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        semaphore.release()
        try await next.value
    }
}
