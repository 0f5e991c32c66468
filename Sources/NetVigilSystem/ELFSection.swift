/// One section header of a 64-bit little-endian ELF file (x86-64, AArch64), found by name: enough to locate a
/// section of the running executable (``ResidentPages/releaseWritableConstants()``).
struct ELFSection: Equatable {
    /// The section's address as linked (before a position-independent executable's load bias).
    var address: UInt64
    var size: UInt64
    var flags: UInt64

    /// `SHF_WRITE`: the section is in a writable segment.
    var isWritable: Bool { flags & 0x1 != 0 }

    /// The section called `name`, reading the file through `read(offset, count)` (which may return fewer bytes at
    /// the end); nil when the file is not a 64-bit little-endian ELF file or has no such section.
    static func find(_ name: String, read: (UInt64, Int) -> [UInt8]?) -> ELFSection? {
        guard let header = read(0, 64), header.count == 64, header[0..<4].elementsEqual([0x7F, 0x45, 0x4C, 0x46]),
              header[4] == 2, header[5] == 1,  // ELFCLASS64, ELFDATA2LSB
              let tableOffset = field(header, at: 40, size: 8), let entrySize = field(header, at: 58, size: 2),
              let count = field(header, at: 60, size: 2), let namesIndex = field(header, at: 62, size: 2),
              entrySize >= 64, count > 0, namesIndex < count,
              let table = read(tableOffset, Int(entrySize * count)), table.count == Int(entrySize * count)
        else { return nil }
        let headers = (0..<Int(count)).map { Array(table[$0 * Int(entrySize)..<$0 * Int(entrySize) + 64]) }
        let namesHeader = headers[Int(namesIndex)]
        guard let namesOffset = field(namesHeader, at: 24, size: 8), let namesSize = field(namesHeader, at: 32, size: 8),
              namesSize <= 1 << 24, let names = read(namesOffset, Int(namesSize))
        else { return nil }
        let wanted = Array(name.utf8)
        for header in headers {
            guard let nameOffset = field(header, at: 0, size: 4), nameOffset < names.count else { continue }
            let start = Int(nameOffset)
            let terminator = names[start...].firstIndex(of: 0) ?? names.count
            guard names[start..<terminator].elementsEqual(wanted), let flags = field(header, at: 8, size: 8),
                  let address = field(header, at: 16, size: 8), let size = field(header, at: 32, size: 8)
            else { continue }
            return ELFSection(address: address, size: size, flags: flags)
        }
        return nil
    }

    /// The little-endian unsigned integer of `size` bytes at `offset` in `bytes`, or nil past the end.
    static func field(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
        guard offset >= 0, offset + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
