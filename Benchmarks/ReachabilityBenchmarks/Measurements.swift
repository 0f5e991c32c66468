import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in seconds.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Nearest-rank percentile (`p` in 0...100); NaN for no values.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
    return sorted[rank]
}

/// User + system CPU seconds of a process (this one through getrusage, others through /proc/PID/stat).
func cpuSeconds(pid: Int32) -> Double {
    if pid == getpid() {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return .nan }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // fields[0] is state (field 3); utime is field 14, stime field 15 → indexes 11, 12
    let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The first three fields of /proc/loadavg.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "? ? ?"
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// `median  p99  max  count` of a sample, in milliseconds with three decimals.
func summary(_ values: [Double]) -> String {
    func fmt(_ v: Double) -> String { String(format: "%8.3f", v) }
    return "\(fmt(percentile(values, 50)))  \(fmt(percentile(values, 99)))  \(fmt(percentile(values, 100)))  \(String(format: "%5d", values.count))"
}
