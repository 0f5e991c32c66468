import NetVigilStore

/// Whether the daemon is doing its job: due probes start and the store takes what they produce.
///
/// `/healthz` serves it and the systemd watchdog ping depends on it, so a wedged daemon answers 503 and stops
/// pinging (systemd then restarts it). Unhealthy when:
/// - a due probe has not started within `max(2 × the shortest interval, 30 s)` of its tick, or a probe has run that
///   long past its timeout (the scheduler or the executor is stuck);
/// - the store's last transaction failed (`store not writable: …`; results wait in memory meanwhile);
/// - a store transaction has run for more than 30 s (the writer is stuck);
/// - a configuration reload has run past ``ReloadProgress/stuckAfter`` (later SIGHUPs wait behind it).
public struct DaemonHealth: Sendable {
    /// The verdict and what is wrong.
    public struct Report: Sendable, Equatable {
        /// One line per problem; empty when healthy.
        public var problems: [String]
        /// The same problems as a public status page may show them: without the store's error, which quotes the
        /// database's path and SQLite's words (`store not writable`, not `store not writable: /var/lib/…: …`).
        public var publicProblems: [String]
        /// What is wrong but leaves probing healthy (a fleet shipping lag): named by `/healthz`, never a 503.
        public var warnings: [String] = []
        public var isHealthy: Bool { problems.isEmpty }

        /// - Parameter publicProblems: nil when `problems` hold nothing private (no path, no error text).
        public init(problems: [String], publicProblems: [String]? = nil, warnings: [String] = []) {
            self.problems = problems
            self.publicProblems = publicProblems ?? problems
            self.warnings = warnings
        }

        /// `ok`, or the problems joined with "; ".
        public var summary: String { isHealthy ? "ok" : problems.joined(separator: "; ") }
    }

    /// The lower bound of the scheduler's threshold.
    public static let minimumProbeDelay: Duration = .seconds(30)
    /// How long one store transaction may run before the writer counts as stuck.
    public static let writerStuckAfter: Duration = .seconds(30)

    private let scheduler: ProbeScheduler?
    private let writer: StoreWriter?
    private let metrics: AgentMetrics?
    private let reload: ReloadProgress?
    private let warningSource: (@Sendable () -> [String])?

    /// - Parameter warnings: problems that do not make the daemon unhealthy (the fleet shipper's lag).
    public init(scheduler: ProbeScheduler?, writer: StoreWriter?, metrics: AgentMetrics? = nil, reload: ReloadProgress? = nil,
                warnings: (@Sendable () -> [String])? = nil) {
        self.scheduler = scheduler
        self.writer = writer
        self.metrics = metrics
        self.reload = reload
        self.warningSource = warnings
    }

    /// Checks now; also sets the `netvigil_healthy`, store and reload gauges.
    public func check(now: ContinuousClock.Instant = .now) -> Report {
        var problems: [String] = []
        var publicProblems: [String] = []
        if let scheduler, let shortest = scheduler.shortestInterval {
            problems += scheduler.overdue(now: now, after: max(shortest * 2, Self.minimumProbeDelay))
            publicProblems = problems
        }
        if let writer {
            let health = writer.health
            if let failure = health.failure {
                problems.append("store not writable: \(failure)")
                publicProblems.append("store not writable")
            }
            if let started = health.transactionStarted, now - started > Self.writerStuckAfter {
                let problem = "store writer stuck: a transaction has run for \((now - started).components.seconds) s "
                    + "with \(health.queuedRows) rows waiting"
                problems.append(problem)
                publicProblems.append(problem)
            }
            metrics?.store(writable: health.failure == nil, queuedRows: health.queuedRows)
        }
        if let reload {
            if let problem = reload.problem(now: now) {
                problems.append(problem)
                publicProblems.append(problem)
            }
            metrics?.configReloadRunning(reload.running(now: now))
        }
        let report = Report(problems: problems, publicProblems: publicProblems, warnings: warningSource?() ?? [])
        metrics?.healthy(report.isHealthy)
        return report
    }
}
