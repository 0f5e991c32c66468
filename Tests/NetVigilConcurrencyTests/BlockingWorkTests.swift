import Dispatch
import XCTest
import NetVigilConcurrency

/// Blocking work: results and typed errors come back, and blocked work items never wait for each other.
final class BlockingWorkTests: XCTestCase {
    private struct Refused: Error, Equatable { let code: Int }

    func testReturnsTheResultAndTheTypedError() async throws {
        let value = await BlockingWork.run { () -> Int in 6 * 7 }
        XCTAssertEqual(value, 42)
        do {
            _ = try await BlockingWork.run { () throws(Refused) -> Int in throw Refused(code: 7) }
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error, Refused(code: 7))
        }
    }

    /// Each item blocks until every other one has started: this only finishes when they all run at once, more than
    /// the machine has cores (a pool sized to the cores would deadlock here, and a slow export would starve DNS).
    func testBlockedItemsRunAtTheSameTime() async {
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await BlockingWork.run { () -> Bool in
                        arrived.signal()
                        return release.wait(timeout: .now() + 10) == .success
                    }
                }
            }
            for _ in 0..<count { _ = arrived.wait(timeout: .now() + 10) }
            for _ in 0..<count { release.signal() }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        XCTAssertEqual(results, Array(repeating: true, count: count))
    }
}
