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
        public var isHealthy: Bool { problems.isEmpty }

        public init(problems: [String]) {
            self.problems = problems
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

    public init(scheduler: ProbeScheduler?, writer: StoreWriter?, metrics: AgentMetrics? = nil, reload: ReloadProgress? = nil) {
        self.scheduler = scheduler
        self.writer = writer
        self.metrics = metrics
        self.reload = reload
    }

    /// Checks now; also sets the `netvigil_healthy`, store and reload gauges.
    public func check(now: ContinuousClock.Instant = .now) -> Report {
        var problems: [String] = []
        if let scheduler, let shortest = scheduler.shortestInterval {
            problems += scheduler.overdue(now: now, after: max(shortest * 2, Self.minimumProbeDelay))
        }
        if let writer {
            let health = writer.health
            if let failure = health.failure {
                problems.append("store not writable: \(failure)")
            }
            if let started = health.transactionStarted, now - started > Self.writerStuckAfter {
                problems.append("store writer stuck: a transaction has run for \((now - started).components.seconds) s "
                                + "with \(health.queuedRows) rows waiting")
            }
            metrics?.store(writable: health.failure == nil, queuedRows: health.queuedRows)
        }
        if let reload {
            if let problem = reload.problem(now: now) { problems.append(problem) }
            metrics?.configReloadRunning(reload.running(now: now))
        }
        let report = Report(problems: problems)
        metrics?.healthy(report.isHealthy)
        return report
    }
}
