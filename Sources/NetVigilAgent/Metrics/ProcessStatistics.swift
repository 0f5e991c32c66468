import Foundation
import NetVigilSystem

/// The daemon's own resource use, read from `/proc/self` the way Prometheus client libraries do for their standard
/// `process_*` metrics.
public struct ProcessStatistics: Sendable, Equatable {
    /// Resident set size (`/proc/self/stat` rss × page size).
    public var residentMemoryBytes: Double
    /// User plus system CPU time (`utime + stime` ÷ clock ticks per second).
    public var cpuSeconds: Double
    /// Entries in `/proc/self/fd`.
    public var openFileDescriptors: Int
    /// The soft `RLIMIT_NOFILE`; nil when unlimited or unreadable.
    public var maxFileDescriptors: Int?
    /// When the process started, Unix seconds (`starttime` ÷ clock ticks + `btime` of `/proc/stat`).
    public var startTime: Double

    /// The current values, nil when `/proc` is not readable (not Linux, or hidden).
    public static func current() -> ProcessStatistics? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: fields are counted after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): field N is fields[N - 3].
        func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
        guard let utime = field(14), let stime = field(15), let starttime = field(22), let rss = field(24) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        guard ticks > 0, pageSize > 0 else { return nil }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return ProcessStatistics(residentMemoryBytes: rss * pageSize, cpuSeconds: (utime + stime) / ticks,
                                 openFileDescriptors: descriptors, maxFileDescriptors: OpenFileLimit.soft(),
                                 startTime: bootTime() + starttime / ticks)
    }

    /// `btime` of `/proc/stat`: boot time, Unix seconds (0 when unreadable).
    private static func bootTime() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
