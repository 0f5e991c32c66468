#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NetVigilSystem

/// The process's open-file limit.
enum DescriptorLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (systemd's default soft limit is 1,024 while the hard one is
    /// far higher), so feed clients and probes do not run out of descriptors first. Logs the result and returns
    /// the soft limit now in force (nil when it cannot be read or is unlimited).
    @discardableResult
    static func raiseToHardLimit(logger: Logger) -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            let previous = limit.rlim_cur
            limit.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                logger.debug("open-file limit raised", metadata: ["from": "\(previous)", "to": "\(limit.rlim_max)"])
            } else {
                logger.warning("cannot raise the open-file limit", metadata: ["soft": "\(previous)", "hard": "\(limit.rlim_max)"])
            }
        }
        return OpenFileLimit.soft()
    }
}
