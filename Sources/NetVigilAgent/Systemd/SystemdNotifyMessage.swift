/// One assignment of the systemd notification protocol (`sd_notify(3)`), e.g. `READY=1`.
///
/// Several messages go out as one datagram, one `KEY=VALUE` per line.
public enum SystemdNotifyMessage: Sendable, Equatable {
    /// `READY=1`: start-up finished (for `Type=notify` this ends the "activating" state).
    case ready
    /// `RELOADING=1` with `MONOTONIC_USEC=`: a configuration reload began; send `.ready` when it is done.
    case reloading(monotonicMicroseconds: UInt64)
    /// `STOPPING=1`: graceful shutdown began.
    case stopping
    /// `WATCHDOG=1`: keep-alive ping for `WatchdogSec=`.
    case watchdog
    /// `STATUS=…`: a one-line, human-readable state shown by `systemctl status`.
    case status(String)

    /// The `KEY=VALUE` text (possibly two lines for `.reloading`). Status text is folded to one line.
    public var assignment: String {
        switch self {
        case .ready: return "READY=1"
        case .reloading(let microseconds): return "RELOADING=1\nMONOTONIC_USEC=\(microseconds)"
        case .stopping: return "STOPPING=1"
        case .watchdog: return "WATCHDOG=1"
        case .status(let text):
            let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            return "STATUS=\(line)"
        }
    }
}
