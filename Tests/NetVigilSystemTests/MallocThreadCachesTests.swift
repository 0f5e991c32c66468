import XCTest
@testable import NetVigilSystem

/// The `GLIBC_TUNABLES` value the daemon executes itself with (the re-execution itself: RunCommandTests).
final class MallocThreadCachesTests: XCTestCase {
    func testAddsTheCountAndKeepsOtherTunables() {
        XCTAssertEqual(MallocThreadCaches.tunables(turningOffIn: nil), "glibc.malloc.tcache_count=0")
        XCTAssertEqual(MallocThreadCaches.tunables(turningOffIn: ""), "glibc.malloc.tcache_count=0")
        XCTAssertEqual(MallocThreadCaches.tunables(turningOffIn: "glibc.malloc.top_pad=1048576"),
                       "glibc.malloc.top_pad=1048576:glibc.malloc.tcache_count=0")
        // A name that only starts like the count is another tunable.
        XCTAssertEqual(MallocThreadCaches.tunables(turningOffIn: "glibc.malloc.tcache_count_x=1"),
                       "glibc.malloc.tcache_count_x=1:glibc.malloc.tcache_count=0")
    }

    func testAnOperatorsOwnCountWins() {
        XCTAssertNil(MallocThreadCaches.tunables(turningOffIn: "glibc.malloc.tcache_count=7"))
        XCTAssertNil(MallocThreadCaches.tunables(turningOffIn: "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=3"))
    }

    func testThisProcessGainedNoPrivilegesAtExec() {
        // The test runner is started by root or a user without file capabilities; the daemon case is in RunCommandTests.
        XCTAssertFalse(MallocThreadCaches.gainedPrivilegesAtExec())
    }
}
