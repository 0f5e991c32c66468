#if canImport(Glibc)
import Glibc
#endif

extension ResidentPages {
    /// After ``releaseFileBacked()``: drops the page cache of the process's own executable and turns off read-around
    /// on its mappings, so that the code which runs later comes back a 4 KiB page per fault.
    ///
    /// Without this, the pages come back from page-cache folios that read-ahead made large (up to 2 MiB), and the
    /// kernel maps a whole folio on a fault: right after the drop an idle daemon had 1,436 of the binary's code pages
    /// back in 27 runs of 32 to 176 pages (docs/performance.md). Once evicted, a fault with `MADV_RANDOM` reads just
    /// the page it needs into a folio of one page. Pages still mapped (by this process or another) are not evicted.
    /// Returns whether the cache was dropped.
    @discardableResult
    public static func evictExecutablePageCache() -> Bool {
        guard let executable = adviseExecutable(readAhead: false) else { return false }
        let descriptor = SystemCall.retryingOnInterrupt { open(executable, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0
    }

    /// Turns read-ahead on the executable's mappings on (`MADV_NORMAL`) or off (`MADV_RANDOM`); returns the
    /// executable's path, nil when its mappings cannot be found. With read-ahead off, code that has not run since
    /// the eviction comes in a page per fault: right for the probe cycle's few pages, slow for work that runs much
    /// cold code at once (a reload of 10,000 targets), which turns it back on while it runs.
    @discardableResult
    public static func adviseExecutable(readAhead: Bool) -> String? {
        guard let executable = executablePath(), let maps = readFile("/proc/self/maps") else { return nil }
        for mapping in mappings(of: executable, maps: maps) {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            _ = madvise(start, Int(mapping.end - mapping.start), readAhead ? MADV_NORMAL : MADV_RANDOM)
        }
        return executable
    }

    /// The mappings of the file at `path` in `maps` (the text of `/proc/PID/maps`).
    static func mappings(of path: String, maps: String) -> [Mapping] {
        maps.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            // The last field keeps the padding before the path.
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }) == path else { return nil }
            return range(fields[0])
        }
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
