import Foundation
import Synchronization
import XCTest
@testable import NetVigilSystem

/// `SharedCache`: a value is made once per key, a failed make stores nothing, and the cache starts over at capacity.
final class SharedCacheTests: XCTestCase {
    func testValueIsMadeOncePerKey() {
        let cache = SharedCache<String, Int>()
        var made = 0
        let first = cache.value(for: "a") { made += 1; return 1 }
        let again = cache.value(for: "a") { made += 1; return 2 }
        XCTAssertEqual([first, again], [1, 1])
        XCTAssertEqual(made, 1)
        XCTAssertEqual(cache.value(for: "b") { 3 }, 3)
        XCTAssertEqual(cache.count, 2)
    }

    func testFailedMakeStoresNothing() {
        struct Refused: Error {}
        let cache = SharedCache<String, Int>()
        XCTAssertThrowsError(try cache.value(for: "a") { () throws(Refused) -> Int in throw Refused() })
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.value(for: "a") { 4 }, 4)
    }

    func testStartsOverAtCapacity() {
        let cache = SharedCache<Int, Int>(capacity: 3)
        for key in 0..<3 { _ = cache.value(for: key) { key } }
        XCTAssertEqual(cache.count, 3)
        _ = cache.value(for: 3) { 3 }
        XCTAssertEqual(cache.count, 1, "the fourth value starts a new set")
        var remade = false
        _ = cache.value(for: 0) { remade = true; return 0 }
        XCTAssertTrue(remade, "values from before the start-over are made again")
    }

    func testRacingCallersAllGetTheValueStoredFirst() {
        // Every caller is inside `make` before any returns, so each finds the others' values when it stores its own.
        let callers = 4
        let cache = SharedCache<Int, Int>()
        let inside = Atomic<Int>(0)
        let results = Mutex<[Int]>([])
        let done = DispatchGroup()
        for caller in 0..<callers {
            done.enter()
            Thread.detachNewThread {
                let value = cache.value(for: 7) {
                    inside.add(1, ordering: .sequentiallyConsistent)
                    while inside.load(ordering: .sequentiallyConsistent) < callers { sched_yield() }
                    return caller
                }
                results.withLock { $0.append(value) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let values = results.withLock { $0 }
        XCTAssertEqual(values.count, callers)
        XCTAssertEqual(Set(values).count, 1, "every caller gets the value stored first: \(values)")
        XCTAssertEqual(cache.count, 1)
    }
}
