#if canImport(Glibc)
import Glibc
#endif

/// The executable's constants that the link left in a writable segment.
///
/// Swift's objects mark their `.rodata` writable (it holds conformance descriptors with relocations), so the
/// linked `.rodata` (tens of MB with ICU's data) lies in a writable mapping that ``ResidentPages/droppable(smaps:)``
/// must skip: the pages the loader relocated are anonymous copies. Nothing writes the section after the loader, so
/// its pages that are still the file's own (bit 61 of their `/proc/self/pagemap` entry) may be dropped like code.
/// The rest of that mapping (`.data`, `.bss`) is left alone: a thread could write a page between the pagemap read
/// and `madvise`, and `MADV_DONTNEED` would discard the write.
extension ResidentPages {
    /// Drops the resident pages of the executable's writable `.rodata` that are still copies of the file; returns
    /// their bytes (0 when the section is read-only, as with other linkers, and so already dropped with the code).
    @discardableResult
    public static func releaseWritableConstants() -> Int {
        guard let range = writableConstants() else { return 0 }
        return releaseCleanFilePages(in: range)
    }

    /// The address range of the running executable's `.rodata` when it is writable.
    static func writableConstants() -> Range<UInt>? {
        let descriptor = SystemCall.retryingOnInterrupt { open("/proc/self/exe", O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let read = { (offset: UInt64, count: Int) in readBytes(descriptor, offset: offset, count: count) }
        guard let section = ELFSection.find(".rodata", read: read), section.isWritable,
              let entry = auxiliaryValue(9 /* AT_ENTRY */), let header = read(0, 64), header.count == 64,
              let fileEntry = ELFSection.field(header, at: 24, size: 8)
        else { return nil }
        // Position-independent executables load at a bias: where the entry point is minus where the file says.
        let bias = UInt(entry) &- UInt(fileEntry)
        let start = bias &+ UInt(section.address)
        return start..<(start + UInt(section.size))
    }

    /// Drops the pages wholly inside `range` that pagemap shows resident and still the file's own; returns their bytes.
    static func releaseCleanFilePages(in range: Range<UInt>) -> Int {
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let first = (range.lowerBound + pageSize - 1) / pageSize * pageSize
        let end = range.upperBound / pageSize * pageSize
        guard end > first else { return 0 }
        let descriptor = SystemCall.retryingOnInterrupt { open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        let pages = Int((end - first) / pageSize)
        let entrySize = MemoryLayout<UInt64>.size
        guard let bytes = readBytes(descriptor, offset: UInt64(first / pageSize) * UInt64(entrySize), count: pages * entrySize),
              bytes.count == pages * entrySize
        else { return 0 }
        let entries = (0..<pages).map { ELFSection.field(bytes, at: $0 * entrySize, size: entrySize) ?? 0 }
        var released = 0
        for run in cleanFilePageRuns(entries, start: first, pageSize: pageSize) {
            guard let address = UnsafeMutableRawPointer(bitPattern: run.lowerBound) else { continue }
            let length = Int(run.upperBound - run.lowerBound)
            if madvise(address, length, MADV_DONTNEED) == 0 { released += length }
        }
        return released
    }

    /// The address ranges of the runs of pages that `entries` (one pagemap entry a page, from `start`) show resident
    /// (bit 63) and backed by the file rather than an anonymous copy (bit 61).
    static func cleanFilePageRuns(_ entries: [UInt64], start: UInt, pageSize: UInt) -> [Range<UInt>] {
        var runs: [Range<UInt>] = []
        var runStart: UInt?
        for (index, entry) in entries.enumerated() {
            let address = start + UInt(index) * pageSize
            if entry >> 63 & 1 == 1, entry >> 61 & 1 == 1 {
                if runStart == nil { runStart = address }
            } else if let begun = runStart {
                runs.append(begun..<address)
                runStart = nil
            }
        }
        if let begun = runStart { runs.append(begun..<(start + UInt(entries.count) * pageSize)) }
        return runs
    }

    /// One value of the process's auxiliary vector (`/proc/self/auxv`: pairs of 64-bit type and value).
    static func auxiliaryValue(_ type: UInt64) -> UInt64? {
        let descriptor = SystemCall.retryingOnInterrupt { open("/proc/self/auxv", O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let bytes = readBytes(descriptor, offset: 0, count: 4_096) else { return nil }
        var offset = 0
        while let key = ELFSection.field(bytes, at: offset, size: 8), key != 0 {
            if key == type { return ELFSection.field(bytes, at: offset + 8, size: 8) }
            offset += 16
        }
        return nil
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file); nil on a read error.
    private static func readBytes(_ descriptor: Int32, offset: UInt64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retryingOnInterrupt {
                    pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                }
            }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            done += got
        }
        return Array(bytes[0..<done])
    }
}
