#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The watchdog systemd asks for through `WATCHDOG_USEC` (and optionally `WATCHDOG_PID`), as in `sd_watchdog_enabled(3)`.
public struct SystemdWatchdog: Sendable, Equatable {
    /// `WatchdogSec=`: the service is restarted when no `WATCHDOG=1` arrives within this time.
    public var timeout: Duration

    /// How often to ping: half the timeout, as systemd recommends.
    public var pingInterval: Duration { timeout / 2 }

    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// The watchdog for this process, or `nil` when `WATCHDOG_USEC` is unset, not a positive integer, or
    /// `WATCHDOG_PID` names another process.
    public init?(environment: [String: String], processID: Int32 = getpid()) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let pidText = environment["WATCHDOG_PID"], !pidText.isEmpty {
            guard let pid = Int32(pidText), pid == processID else { return nil }
        }
        self.init(timeout: .microseconds(Int64(clamping: microseconds)))
    }
}
