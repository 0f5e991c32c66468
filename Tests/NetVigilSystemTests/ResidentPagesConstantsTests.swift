import Foundation
import XCTest
@testable import NetVigilSystem

/// Dropping the clean file pages of a writable private mapping (the executable's writable `.rodata`): which pages
/// pagemap entries select, and on a real mapping of a file, that written pages and their data stay.
final class ResidentPagesConstantsTests: XCTestCase {
    func testRunsAreThePresentFilePages() {
        let present: UInt64 = 1 << 63, file: UInt64 = 1 << 61
        let entries: [UInt64] = [present | file, present | file, present, 0, file, present | file, present | file | 0x1234]
        XCTAssertEqual(ResidentPages.cleanFilePageRuns(entries, start: 0x10000, pageSize: 0x1000), [
            0x10000..<0x12000,  // pages 0 and 1
            0x15000..<0x17000,  // pages 5 and 6, the run ending with the entries
        ])
        XCTAssertEqual(ResidentPages.cleanFilePageRuns([present, 0, file], start: 0, pageSize: 0x1000), [])
    }

    func testCleanPagesOfAPrivateWritableFileMappingAreDroppedAndWrittenOnesKept() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE))), pages = 64
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netvigil-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("constants").path
        // Page i is filled with the byte i.
        let content = (0..<pages).flatMap { [UInt8](repeating: UInt8($0), count: pageSize) }
        try Data(content).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let length = pages * pageSize
        let mapped = try XCTUnwrap(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, length) }
        let bytes = mapped.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        for page in 0..<pages { sum += Int(bytes[page * pageSize]) }
        XCTAssertEqual(sum, (0..<pages).reduce(0, +))
        bytes[3 * pageSize] = 0xEE  // copied on write: anonymous from now on
        bytes[10 * pageSize + 7] = 0xEE
        let start = UInt(bitPattern: mapped)
        XCTAssertEqual(try Self.residentKiB(of: start), pages * pageSize / 1024)

        let released = ResidentPages.releaseCleanFilePages(in: start..<start + UInt(length))
        XCTAssertEqual(released, (pages - 2) * pageSize)
        XCTAssertEqual(try Self.residentKiB(of: start), 2 * pageSize / 1024)
        XCTAssertEqual(bytes[3 * pageSize], 0xEE)
        XCTAssertEqual(bytes[10 * pageSize + 7], 0xEE)
        XCTAssertEqual(bytes[10 * pageSize], 10)
        // Dropped pages read back from the file.
        XCTAssertEqual(bytes[5 * pageSize + 100], 5)
        XCTAssertEqual(bytes[63 * pageSize], 63)
    }

    func testTheRunningExecutablesWritableConstantsAreFoundAndReleased() throws {
        // Swift's objects give the linked `.rodata` the write flag, in this test binary as in the release one.
        let range = try XCTUnwrap(ResidentPages.writableConstants(), "no writable .rodata in the test binary")
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let mappings = maps.split(separator: "\n").filter { $0.hasSuffix(executable) }.map { line in
            line.split(separator: " ")[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
        }
        // The range is mapped (the section can span the segment's mappings) and writable pages follow its start.
        XCTAssertTrue(mappings.contains { $0.count == 2 && $0[0] <= range.lowerBound && range.lowerBound < $0[1] },
                      "\(range) is not in a mapping of \(executable)")
        XCTAssertGreaterThanOrEqual(ResidentPages.releaseWritableConstants(), 0)
        // Constants read back from the file afterwards.
        XCTAssertEqual(ResidentPages.cleanFilePageRuns([1 << 63 | 1 << 61], start: 0, pageSize: 4_096), [0..<4_096])
    }

    /// The `Rss` of the mapping that starts at `start`, from `/proc/self/smaps`.
    private static func residentKiB(of start: UInt) throws -> Int {
        let file = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let header = try XCTUnwrap(smaps.firstIndex { $0.hasPrefix(String(start, radix: 16) + "-") },
                                   "no mapping at \(String(start, radix: 16)) in \(smaps.count) lines of smaps")
        let line = try XCTUnwrap(smaps[header...].first { $0.hasPrefix("Rss:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
