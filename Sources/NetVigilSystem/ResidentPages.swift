#if canImport(Glibc)
import Glibc
#endif

/// Drops the process's resident pages of read-only file mappings (its binary's code and constants, shared
/// libraries, SQLite's memory-mapped reads of the database), so that code which ran once at start-up (argument
/// parsing, YAML, migrations, ICU set-up) and database pages read once stop counting in RSS. What runs or is read
/// later faults its pages back in from the page cache.
///
/// Only mappings that are not writable and hold no anonymous (copy-on-write) pages are touched: their pages are exact
/// copies of the file, so `MADV_DONTNEED` loses nothing. Relocated read-only data (RELRO) has anonymous pages and is
/// left alone. Shared read-only mappings count too: SQLite maps the database read-only (`mmap_size`) and writes
/// with `write(2)`, and the pages its reads map grow with the database (0.85 MB after 40 minutes of an idle
/// daemon with 100 targets, docs/performance.md) up to `mmap_size`.
public enum ResidentPages {
    /// One mapping from `/proc/self/smaps` that may be dropped.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
    }

    /// The range of a maps/smaps header's first field ("start-end", hexadecimal); nil when it is not one.
    static func range(_ field: Substring) -> Mapping? {
        let bounds = field.split(separator: "-")
        guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else {
            return nil
        }
        return Mapping(start: start, end: end)
    }

    /// Drops the pages; returns the bytes of the ranges advised (not all of them were resident).
    @discardableResult
    public static func releaseFileBacked() -> Int {
        guard let smaps = readFile("/proc/self/smaps") else { return 0 }
        var released = 0
        for mapping in droppable(smaps: smaps) {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let length = Int(mapping.end - mapping.start)
            if madvise(start, length, MADV_DONTNEED) == 0 { released += length }
        }
        return released
    }

    /// The read-only, file-backed mappings without anonymous pages in `smaps` (the text of
    /// `/proc/PID/smaps`).
    static func droppable(smaps: String) -> [Mapping] {
        var result: [Mapping] = []
        var candidate: Mapping?
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let name = fields.first else { continue }
            if name.contains("-"), !name.hasSuffix(":") {
                candidate = droppableMapping(fields)
            } else if name == "Anonymous:" {
                if let mapping = candidate, fields.count > 1, fields[1] == "0" { result.append(mapping) }
                candidate = nil
            }
        }
        return result
    }

    /// The mapping a header line ("start-end perms offset dev inode path") describes, when it may be dropped:
    /// readable, not writable, backed by a file (an inode); private or shared.
    private static func droppableMapping(_ fields: [Substring]) -> Mapping? {
        guard fields.count >= 6, fields[4] != "0" else { return nil }
        let permissions = Array(fields[1])
        guard permissions.count == 4, permissions[0] == "r", permissions[1] == "-" else { return nil }
        return range(fields[0])
    }

    static func readFile(_ path: String) -> String? {
        let descriptor = SystemCall.retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retryingOnInterrupt { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
