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

    func testOnlyReadOnlyFileMappingsWithoutAnonymousPagesQualify() {
        let mappings = ResidentPages.droppable(smaps: Self.smaps)
        XCTAssertEqual(mappings, [
            .init(start: 0x55a0_c000_0000, end: 0x55a0_c200_0000),  // the binary's code
            .init(start: 0x7f00_0000_0000, end: 0x7f00_0010_0000),  // SQLite's read-only map of the database
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
        XCTAssertEqual(ResidentPages.droppable(smaps: Self.smaps).count, 3)
    }

    /// A database file mapped shared and read-only, as SQLite's `mmap_size` maps it: its pages go, its bytes stay.
    func testASharedReadOnlyMapOfAFileIsDroppedAndReadsBackTheSameBytes() throws {
        let path = NSTemporaryDirectory() + "netvigil-resident-\(getpid()).db"
        let size = 1 << 20
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let mapped = try XCTUnwrap(mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, size) }
        let view = mapped.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        for offset in stride(from: 0, to: size, by: 4_096) { sum &+= Int(view[offset]) }
        func resident() -> Int {
            var vector = [UInt8](repeating: 0, count: size / 4_096)
            XCTAssertEqual(mincore(mapped, size, &vector), 0)
            return vector.filter { $0 & 1 == 1 }.count
        }
        // mincore reports the page cache; the mapping's own resident pages are what smaps counts.
        func mappedKiB() throws -> Int {
            // ResidentPages' own reader: Foundation's may stop early on a /proc file (it reports size 0).
            let smaps = try XCTUnwrap(ResidentPages.readFile("/proc/self/smaps"))
            let start = String(UInt(bitPattern: mapped), radix: 16)
            let block = try XCTUnwrap(smaps.components(separatedBy: "\n").drop { !$0.hasPrefix(start + "-") }.dropFirst()
                .first { $0.hasPrefix("Rss:") })
            return try XCTUnwrap(Int(block.split(separator: " ", omittingEmptySubsequences: true)[1]))
        }
        XCTAssertEqual(resident(), size / 4_096)
        XCTAssertGreaterThanOrEqual(try mappedKiB(), 1_000, "every page was read through the map")
        ResidentPages.releaseFileBacked()
        XCTAssertEqual(try mappedKiB(), 0, "the map's pages were dropped")
        var again = 0
        for offset in stride(from: 0, to: size, by: 4_096) { again &+= Int(view[offset]) }
        XCTAssertEqual(again, sum, "the file's bytes read back through the map")
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
        let smaps = try XCTUnwrap(ResidentPages.readFile("/proc/self/smaps"))
        XCTAssertTrue(smaps.contains(" rr "), "MADV_RANDOM is set on the executable's mappings (VmFlags rr)")
        // The code faults back in, a page at a time: the parser still gives the same answer.
        XCTAssertEqual(ResidentPages.droppable(smaps: Self.smaps).count, 3)
    }

    private static func residentFileKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
