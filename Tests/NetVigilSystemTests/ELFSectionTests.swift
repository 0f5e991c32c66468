import Foundation
import XCTest
@testable import NetVigilSystem

/// Finding a section by name in an ELF file's section headers: a file made here byte by byte, bad files, and the
/// test binary itself.
final class ELFSectionTests: XCTestCase {
    /// A 64-bit little-endian ELF header and three section headers: null, `.rodata` (writable, at 0x4000, 0x2000
    /// bytes) and the section names.
    private static func file() -> [UInt8] {
        let names = Array("\0.rodata\0.shstrtab\0".utf8)
        func little(_ value: UInt64, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var header = [UInt8](repeating: 0, count: 64)
        header.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
        header.replaceSubrange(40..<48, with: little(64, 8))  // e_shoff
        header.replaceSubrange(58..<64, with: little(64, 2) + little(3, 2) + little(2, 2))  // entry size, count, names
        func section(name: UInt64, flags: UInt64, address: UInt64, offset: UInt64, size: UInt64) -> [UInt8] {
            little(name, 4) + little(1, 4) + little(flags, 8) + little(address, 8) + little(offset, 8) + little(size, 8)
                + [UInt8](repeating: 0, count: 24)
        }
        return header + [UInt8](repeating: 0, count: 64)
            + section(name: 1, flags: 0x3, address: 0x4000, offset: 0, size: 0x2000)
            + section(name: 9, flags: 0, address: 0, offset: 256, size: UInt64(names.count)) + names
    }

    private static func reader(_ bytes: [UInt8]) -> (UInt64, Int) -> [UInt8]? {
        { offset, count in
            guard offset <= UInt64(bytes.count) else { return [] }
            return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
    }

    func testFindsASectionByNameWithItsAddressSizeAndFlags() {
        let section = ELFSection.find(".rodata", read: Self.reader(Self.file()))
        XCTAssertEqual(section, ELFSection(address: 0x4000, size: 0x2000, flags: 0x3))
        XCTAssertEqual(section?.isWritable, true)
        XCTAssertNil(ELFSection.find(".text", read: Self.reader(Self.file())))
        // A name that only starts like one in the table is not it.
        XCTAssertNil(ELFSection.find(".rodat", read: Self.reader(Self.file())))
    }

    func testTruncatedAndForeignFilesHaveNoSections() {
        let file = Self.file()
        XCTAssertNil(ELFSection.find(".rodata", read: Self.reader(Array(file.prefix(200)))))
        XCTAssertNil(ELFSection.find(".rodata", read: Self.reader(Array(file.prefix(40)))))
        var bigEndian = file
        bigEndian[5] = 2
        XCTAssertNil(ELFSection.find(".rodata", read: Self.reader(bigEndian)))
        XCTAssertNil(ELFSection.find(".rodata", read: Self.reader(Array("#!/bin/sh\necho not an ELF file\n".utf8))))
        XCTAssertNil(ELFSection.find(".rodata", read: { _, _ in nil }))
    }

    func testTheTestBinaryHasReadOnlyCode() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/proc/self/exe")))
        let text = try XCTUnwrap(ELFSection.find(".text", read: Self.reader(bytes)))
        XCTAssertFalse(text.isWritable)
        XCTAssertGreaterThan(text.size, 0)
    }
}
