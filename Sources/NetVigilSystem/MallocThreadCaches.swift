#if canImport(Glibc)
import Glibc
#endif

/// glibc's per-thread malloc caches (tcache), turned off for the daemon.
///
/// Each thread keeps up to seven freed blocks of every small size for itself; malloc counts them as in use and
/// `malloc_trim` cannot give them back. In a daemon of 11–15 threads they made the heap drift up by ~0.6 MB in an
/// hour after a busy start, and with them off every measured run stayed flat and 0.6–1.1 MB smaller; an idle daemon's
/// CPU did not change; 10,000 targets cost 11–13 % more until the store writer stopped re-parsing its statements, and
/// no measurable CPU since (docs/performance.md, Footprint and start-up). glibc reads the
/// setting only from `GLIBC_TUNABLES` when a process starts (there is no `mallopt` for it), so the daemon executes
/// itself again with it added.
public enum MallocThreadCaches {
    /// The tunable holding how many blocks of each size a thread's cache keeps (glibc's default: 7).
    public static let countTunable = "glibc.malloc.tcache_count"

    /// The `GLIBC_TUNABLES` value with the caches off and every setting of `existing` kept (`name=value` entries
    /// separated by colons); nil when `existing` sets the count already: an operator's own value wins.
    public static func tunables(turningOffIn existing: String?) -> String? {
        guard let existing, !existing.isEmpty else { return "\(countTunable)=0" }
        let names = existing.split(separator: ":").map { $0.split(separator: "=", maxSplits: 1).first ?? "" }
        if names.contains(where: { $0 == countTunable }) { return nil }
        return "\(existing):\(countTunable)=0"
    }

    /// Executes this program again (`/proc/self/exe`: same process ID, arguments and environment) with the caches
    /// off, unless `GLIBC_TUNABLES` already sets their count. Call it first in `main`, before anything is opened
    /// that should not cross an `exec`. Returns only when there is nothing to do or the `exec` failed (no `/proc`):
    /// then the process goes on with the caches on, as before. A process that gained privileges at `exec` (file
    /// capabilities, set-user-ID: `AT_SECURE`) keeps them on: glibc erases this tunable there, and each `exec` would
    /// find it missing again.
    ///
    /// An `exec` of `/proc/self/exe` names the process `exe` (the kernel takes the name from the path executed), which
    /// `ps`, `top` and `pgrep netvigil` would show; the process executed again takes its name back from its first
    /// argument, as the shell or systemd gave it (``restoreName()``).
    public static func turnOffByReexecuting() {
        guard !gainedPrivilegesAtExec(),
              let value = tunables(turningOffIn: getenv("GLIBC_TUNABLES").map { String(cString: $0) }) else {
            restoreName()
            return
        }
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let variable = entry.pointee {
            if !String(cString: variable).hasPrefix("GLIBC_TUNABLES=") { environment.append(strdup(variable)) }
            entry += 1
        }
        environment.append(strdup("GLIBC_TUNABLES=\(value)"))
        environment.append(nil)
        _ = execve("/proc/self/exe", CommandLine.unsafeArgv, environment)
        for variable in environment { free(variable) }
    }

    /// Names the process (`/proc/self/comm`, which `ps` shows: 15 bytes at most) after the last path component of
    /// its first argument when it is called `exe`, the name an `exec` of `/proc/self/exe` gives it.
    static func restoreName() {
        guard ResidentPages.readFile("/proc/self/comm") == "exe\n", let first = CommandLine.arguments.first,
              let name = first.split(separator: "/").last, name != "exe" else { return }
        let writing = open("/proc/self/comm", O_WRONLY | O_CLOEXEC)
        guard writing >= 0 else { return }
        defer { close(writing) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { buffer in
            SystemCall.retryingOnInterrupt { write(writing, buffer.baseAddress, buffer.count) }
        }
    }

    /// Whether the kernel marked this program's `exec` as gaining privileges (`AT_SECURE` in `/proc/self/auxv`, the
    /// auxiliary vector's type and value pairs); true when that cannot be read.
    static func gainedPrivilegesAtExec() -> Bool {
        guard let secure = ResidentPages.auxiliaryValue(UInt64(AT_SECURE)) else { return true }
        return secure != 0
    }
}
