#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), read in one place for the descriptor budget and the metrics.
public enum OpenFileLimit {
    /// The soft limit now in force; nil when it is unlimited (`RLIM_INFINITY`, the largest `rlim_t`) or cannot be read.
    public static func soft() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur <= rlim_t(Int.max) else { return nil }
        return Int(limit.rlim_cur)
    }
}
