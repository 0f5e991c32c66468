import Logging
import NetVigilConcurrency
import NetVigilReachability
import ServiceLifecycle
import Synchronization

/// Runs every target on its own interval.
///
/// - Starts are spread: each target's first tick falls at a fixed place (a hash of its name, on the wall clock) in
///   `min(interval, max(10 s, targets / 100 per s))`, so short lists probe soon after start and long lists never
///   start more than 100 probes per second (see ``spreadWindow(interval:targets:maximumSpread:maximumStartRate:)``).
/// - At most `concurrency` probes run at once (FIFO); one target is never probed twice at the same time.
/// - A tick that comes while the target's previous probe still runs is skipped, not queued.
/// - When a target's host becomes reachable again after a skipped probe, it is probed at once.
/// - Stopping cancels the probes in flight: each is stored as skipped ("cancelled: netvigil stopped ..."), with no alert.
/// - `update(targets:)` applies a reloaded configuration: unchanged targets keep their phase, changed ones restart
///   (after their probe in flight, keeping their next tick when the interval is the same), removed ones stop and
///   their firing alerts resolve ("target removed").
///
/// The decisions are ``ProbeTimeline``'s (a pure state machine with every target's next tick in a heap); this class
/// is its shell: one loop task sleeps until the earliest tick (or a wake from a reload, a finished probe or a host
/// coming back) and starts each due probe as a child task that lives only for that probe, so an idle target costs
/// a heap entry, not a suspended task. That task prefers one of the prober's event loops as its executor
/// (``Prober/nextTaskExecutor()``), so it and its channel run on one thread.
public final class ProbeScheduler: Service, Sendable {
    private struct State {
        var timeline: ProbeTimeline
        /// The loop is asleep (or about to be) until `loopDeadline` (nil: until woken).
        var loopAsleep = false
        var loopDeadline: ContinuousClock.Instant?
        var reachabilityWatch: Task<Void, Never>?

        /// Whether a change just made needs the sleeping loop woken: a tick now falls before the loop's deadline.
        mutating func loopMustWake() -> Bool {
            guard loopAsleep, let due = timeline.nextDue() else { return false }
            if let loopDeadline, loopDeadline <= due { return false }
            loopAsleep = false
            return true
        }
    }

    private let pipeline: ProbePipeline
    private let semaphore: AsyncSemaphore
    private let logger: Logger
    /// Punctuality figures (also used by the benchmark).
    public let statistics: SchedulerStatistics
    private let state: Mutex<State>
    /// Wakes `run`'s loop when an earlier tick was scheduled or the scheduler shuts down.
    private let loopWaker = Waker()
    private let maximumSpread: Duration
    private let maximumStartRate: Double

    /// - Parameters:
    ///   - targets: the initial targets.
    ///   - concurrency: probes running at once across all targets.
    ///   - maximumSpread: first ticks are spread over at least `min(interval, maximumSpread)`.
    ///   - maximumStartRate: first ticks per second the spread is widened (up to the interval) to stay under.
    ///   - statistics: where start lateness and skipped ticks are counted (the benchmark keeps more samples).
    public init(targets: [ProbeTarget], concurrency: Int, pipeline: ProbePipeline, logger: Logger,
                maximumSpread: Duration = .seconds(10), maximumStartRate: Double = 100,
                statistics: SchedulerStatistics = SchedulerStatistics()) {
        self.statistics = statistics
        self.pipeline = pipeline
        self.semaphore = AsyncSemaphore(value: max(1, concurrency))
        self.logger = logger
        self.maximumSpread = maximumSpread
        self.maximumStartRate = maximumStartRate
        pipeline.states.configure(targets)
        state = Mutex(State(timeline: ProbeTimeline(targets: targets, maximumSpread: maximumSpread,
                                                    maximumStartRate: maximumStartRate)))
    }

    /// The targets being scheduled, by name.
    public var targetNames: [String] { state.withLock { $0.timeline.names } }

    public func run() async throws {
        await watchReachability()
        // Graceful shutdown cancels the probes in flight (each is stored as cancelled) and returns once they have
        // ended; cancellation (another service failed) stops the same way, so the group never waits on a probe.
        await withStopHandler {
            await withDiscardingTaskGroup { group in
                let (now, wallClock) = (ContinuousClock.now, Self.wallClockNanoseconds())
                state.withLock { $0.timeline.place(now: now, wallClockNanoseconds: wallClock) }
                while true {
                    let next = state.withLock { state -> (starts: [ProbeTimeline.Start], deadline: ContinuousClock.Instant?)? in
                        guard !state.timeline.isShutDown else { return nil }
                        let starts = state.timeline.due(now: .now)
                        let deadline = state.timeline.nextDue()
                        state.loopAsleep = true
                        state.loopDeadline = deadline
                        return (starts, deadline)
                    }
                    guard let next else {
                        // Stopping: probes in flight are cancelled (stored as cancelled, no alert), not waited for,
                        // so one silent target cannot hold the stop up until its timeout.
                        group.cancelAll()
                        break
                    }
                    // Each probe's task runs on one of the prober's event loops (spread over the group), where
                    // its channel lives: no thread hop per await. Nothing on its path may block (docs/architecture.md).
                    for start in next.starts {
                        group.addTask(executorPreference: pipeline.prober.nextTaskExecutor()) { await self.probe(start) }
                    }
                    // Cancellation also calls `shutdown()` (see below), so a cancelled sleep ends the loop.
                    if let deadline = next.deadline {
                        _ = await loopWaker.sleep(until: deadline)
                    } else {
                        _ = await loopWaker.wait()
                    }
                }
            }
        } onStop: {
            self.shutdown()
        }
        logger.debug("probe scheduler stopped")
    }

    /// Applies a new target list (SIGHUP reload). Returns the names added, changed and removed.
    @discardableResult
    public func update(targets: [ProbeTarget]) async -> (added: [String], changed: [String], removed: [String]) {
        pipeline.states.configure(targets)
        let (now, wallClock) = (ContinuousClock.now, Self.wallClockNanoseconds())
        let names = Set(targets.map(\.name))
        let (change, wake, removed, changed) = state.withLock { state in
            let previous = state.timeline.slots.values.map(\.target)
            let change = state.timeline.update(targets: targets, now: now, wallClockNanoseconds: wallClock)
            let changedNames = Set(change.changed)
            return (change, state.loopMustWake(), previous.filter { !names.contains($0.name) },
                    previous.filter { changedNames.contains($0.name) })
        }
        if wake { loopWaker.wake() }
        // A removed or changed target's firing alerts resolve, saying why, so no sink is left with one firing forever;
        // a changed target's alerts then start anew from its next result under its new settings.
        pipeline.resolveAlerts(ofRemoved: removed)
        pipeline.resolveAlerts(ofRemoved: changed, resolution: AlertEngine.changedResolution)
        for name in change.removed { pipeline.metrics?.targetRemoved(name) }
        for name in change.added + change.changed { pipeline.alerts?.admit(target: name) }
        await watchReachability()
        return (change.added, change.changed, change.removed)
    }

    /// How long the first round of probes takes to start: the spread window of the longest interval.
    public var firstRoundSpread: Duration {
        let (count, longest) = state.withLock { ($0.timeline.count, $0.timeline.longestInterval) }
        guard let longest else { return .zero }
        return Self.spreadWindow(interval: longest, targets: count, maximumSpread: maximumSpread,
                                 maximumStartRate: maximumStartRate)
    }

    /// The shortest probe interval among the scheduled targets; nil without targets.
    public var shortestInterval: Duration? {
        state.withLock { $0.timeline.shortestInterval }
    }

    /// Targets whose due probe has not started within `threshold` of its tick, or whose probe has run longer than
    /// its timeout plus `threshold`: one line each, for `/healthz`.
    public func overdue(now: ContinuousClock.Instant = .now, after threshold: Duration) -> [String] {
        state.withLock { $0.timeline.overdue(now: now, after: threshold) }
    }

    /// Stops the loop (graceful shutdown); probes in flight are cancelled and stored as cancelled, due ones not yet
    /// started are not run.
    public func shutdown() {
        let watch = state.withLock { state -> Task<Void, Never>? in
            state.timeline.shutdown()
            return state.reachabilityWatch
        }
        watch?.cancel()
        loopWaker.wake()
    }

    /// One due probe, in its own child task: take a permit (FIFO), probe, report back.
    private func probe(_ start: ProbeTimeline.Start) async {
        do {
            try await semaphore.acquire()
        } catch {
            return  // cancelled: the scheduler stops
        }
        let began = ContinuousClock.now
        guard let target = state.withLock({ $0.timeline.begin(start, now: began) }) else {
            semaphore.release()
            return
        }
        statistics.probeStarted(latenessSeconds: (began - start.tick).inSeconds)
        let record = await pipeline.run(target)
        semaphore.release()
        let (now, wallClock) = (ContinuousClock.now, Self.wallClockNanoseconds())
        let (missed, wake) = state.withLock { state in
            (state.timeline.finished(start, skipped: record.outcome == .skipped, now: now, wallClockNanoseconds: wallClock),
             state.loopMustWake())
        }
        if wake { loopWaker.wake() }
        if missed > 0 {
            statistics.ticksSkipped(missed)
            logger.debug("probe took longer than its interval; ticks skipped",
                         metadata: ["target": "\(start.name)", "skipped": "\(missed)"])
        }
    }

    /// Follows the reachability of every target's host: a host that comes back makes its skipped targets due.
    private func watchReachability() async {
        guard let monitor = pipeline.reachability else { return }
        let targets = state.withLock { $0.timeline.slots.values.map(\.target) }
        let hosts = Array(Set(targets.compactMap(\.reachabilityTarget)))
        guard !hosts.isEmpty else { return }
        await monitor.add(hosts)
        let stream = await monitor.changes(for: hosts)
        let task = Task { [weak self] in
            for await evaluation in stream {
                guard let self, evaluation.status != .notReachable else { continue }
                let now = ContinuousClock.now
                let (woken, wake) = self.state.withLock { state in
                    (state.timeline.wake(host: evaluation.target, now: now), state.loopMustWake())
                }
                for name in woken {
                    self.logger.info("host reachable again, probing now",
                                     metadata: ["target": "\(name)", "status": "\(evaluation.status.name)"])
                }
                if wake { self.loopWaker.wake() }
            }
        }
        let (previous, stopped) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            defer { state.reachabilityWatch = task }
            return (state.reachabilityWatch, state.timeline.isShutDown)
        }
        previous?.cancel()
        if stopped { task.cancel() }
    }
}
