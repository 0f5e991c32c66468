import Foundation
import XCTest
@testable import NetVigilSystem

/// Dropping the resident pages of read-only file mappings: which mappings qualify, and that a live process keeps
/// working (and gets smaller) after it.
final class ResidentPagesTests: XCTestCase {
    private static let smaps = """
        55a0c0000000-55a0c2000000 r-xp 00000000 fe:00 1234                       /usr/bin/netvigil
        Size:              32768 kB
        Rss:               16000 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me sd
        55a0c2001000-55a0c2100000 r--p 02000000 fe:00 1234                       /usr/bin/netvigil
        Rss:                1096 kB
        Anonymous:          1096 kB
        55a0c2100000-55a0c2200000 rw-p 02100000 fe:00 1234                       /usr/bin/netvigil
        Anonymous:             0 kB
        7f0000000000-7f0000100000 r--s 00000000 fe:00 99                         /var/lib/netvigil/netvigil.sqlite
        Anonymous:             0 kB
        7f0000200000-7f0000300000 rw-p 00000000 00:00 0
        Anonymous:          1024 kB
        7f0000400000-7f0000410000 r--p 00000000 fe:00 77                         /usr/lib/x86_64-linux-gnu/libc.so.6
        Anonymous:             0 kB
        7f0000500000-7f0000501000 r-xp 00000000 00:00 0                          [vdso]
        Anonymous:             0 kB
        """

    func testOnlyReadOnlyPrivateFileMappingsWithoutAnonymousPagesQualify() {
        let mappings = ResidentPages.droppable(smaps: Self.smaps)
        XCTAssertEqual(mappings, [
            .init(start: 0x55a0_c000_0000, end: 0x55a0_c200_0000),  // the binary's code
            .init(start: 0x7f00_0040_0000, end: 0x7f00_0041_0000),  // a library's constants
        ])
    }

    func testReleasingShrinksFileBackedRSSAndTheProcessRunsOn() throws {
        // Touch this test binary's pages so there is something to drop.
        _ = ResidentPages.droppable(smaps: Self.smaps)
        let before = try Self.residentFileKiB()
        XCTAssertGreaterThan(ResidentPages.releaseFileBacked(), 0)
        let after = try Self.residentFileKiB()
        XCTAssertLessThan(after, before)
        // Code and constants fault back in: the parser still gives the same answer.
        XCTAssertEqual(ResidentPages.droppable(smaps: Self.smaps).count, 2)
    }

    func testMappingsOfTheExecutableAreFoundByPath() {
        let maps = """
            55a0c0000000-55a0c2000000 r-xp 00000000 fe:00 1234                       /usr/bin/netvigil
            55a0c2100000-55a0c2200000 rw-p 02100000 fe:00 1234                       /usr/bin/netvigil
            7f0000400000-7f0000410000 r--p 00000000 fe:00 77                         /usr/lib/x86_64-linux-gnu/libc.so.6
            7f0000200000-7f0000300000 rw-p 00000000 00:00 0
            """
        XCTAssertEqual(ResidentPages.mappings(of: "/usr/bin/netvigil", maps: maps), [
            .init(start: 0x55a0_c000_0000, end: 0x55a0_c200_0000),
            .init(start: 0x55a0_c210_0000, end: 0x55a0_c220_0000),
        ])
    }

    func testEvictingTheExecutablesPageCacheLeavesAWorkingProcessWithSmallerFolios() throws {
        ResidentPages.releaseFileBacked()
        XCTAssertTrue(ResidentPages.evictExecutablePageCache())
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        XCTAssertTrue(maps.split(separator: "\n").contains { $0.contains(" r-xp ") && $0.contains(".xctest") },
                      "the test binary's code is mapped")
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        XCTAssertTrue(smaps.contains(" rr "), "MADV_RANDOM is set on the executable's mappings (VmFlags rr)")
        // The code faults back in, a page at a time: the parser still gives the same answer.
        XCTAssertEqual(ResidentPages.droppable(smaps: Self.smaps).count, 2)
    }

    private static func residentFileKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
