import Synchronization

/// When the configuration reload in progress started, shared by ``ConfigReloader`` and ``DaemonHealth``.
///
/// Reloads run one at a time, so one that never ends (a file system that hangs a read, a wedged apply) silently
/// swallows every later SIGHUP: past ``stuckAfter`` it is logged, exported as
/// `netvigil_config_reload_running_seconds` and makes `/healthz` answer 503.
public final class ReloadProgress: Sendable {
    /// The default bound: far above what a reload of the largest configuration takes (docs/performance.md, Scale).
    public static let defaultStuckAfter: Duration = .seconds(30)

    /// How long a reload may run before it is reported.
    public let stuckAfter: Duration
    private let started = Mutex<ContinuousClock.Instant?>(nil)

    public init(stuckAfter: Duration = ReloadProgress.defaultStuckAfter) {
        self.stuckAfter = stuckAfter
    }

    /// A reload starts now.
    func began(at instant: ContinuousClock.Instant = .now) {
        started.withLock { $0 = instant }
    }

    /// The reload ended, applied or refused.
    func ended() {
        started.withLock { $0 = nil }
    }

    /// How long the reload in progress has run at `now`; nil when none runs.
    public func running(now: ContinuousClock.Instant = .now) -> Duration? {
        started.withLock { $0 }.map { now - $0 }
    }

    /// The health problem of a reload running past ``stuckAfter``, or nil.
    public func problem(now: ContinuousClock.Instant = .now) -> String? {
        guard let running = running(now: now), running > stuckAfter else { return nil }
        return "configuration reload stuck: it has run for \(running.components.seconds) s "
            + "(later SIGHUPs wait for it; is an included file on a hung file system?)"
    }
}
