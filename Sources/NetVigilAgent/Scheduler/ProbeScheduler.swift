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
/// - `update(targets:)` applies a reloaded configuration: unchanged targets keep their phase, changed ones restart,
///   removed ones stop.
public final class ProbeScheduler: Service, Sendable {
    private final class Runner: Sendable {
        let target: ProbeTarget
        let waker = Waker()
        /// The runner this one replaces after a reload: it must finish its probe first.
        let predecessor: Runner?
        private let finished = Atomic<Bool>(false)
        private let finishedWaker = Waker()
        private let stopped = Atomic<Bool>(false)
        private let lastSkipped = Atomic<Bool>(false)
        /// Waiting for a tick (`due` is when it falls) or probing since `started`; read by ``overdue(now:after:)``.
        let phase = Mutex<RunnerPhase>(.starting)

        init(target: ProbeTarget, predecessor: Runner? = nil) {
            self.target = target
            self.predecessor = predecessor
        }

        var isStopped: Bool { stopped.load(ordering: .relaxed) }
        func stop() {
            stopped.store(true, ordering: .relaxed)
            waker.wake()
        }
        var wasSkipped: Bool {
            get { lastSkipped.load(ordering: .relaxed) }
            set { lastSkipped.store(newValue, ordering: .relaxed) }
        }
        /// The loop has ended (its last probe is stored).
        func markFinished() {
            finished.store(true, ordering: .releasing)
            finishedWaker.wake()
        }
        /// Waits until the loop has ended, or the waiting task is cancelled.
        func waitUntilFinished() async {
            while !finished.load(ordering: .acquiring) {
                guard await finishedWaker.wait() else { return }
            }
        }
    }

    /// Where a runner is in its loop.
    enum RunnerPhase {
        case starting
        case due(ContinuousClock.Instant)
        case probing(since: ContinuousClock.Instant)
    }

    private struct State {
        var runners: [String: Runner] = [:]
        var pending: [Runner] = []
        var shutdown = false
        var reachabilityWatch: Task<Void, Never>?
    }

    private let pipeline: ProbePipeline
    private let semaphore: AsyncSemaphore
    private let logger: Logger
    /// Punctuality figures (also used by the benchmark).
    public let statistics = SchedulerStatistics()
    private let state = Mutex(State())
    /// Wakes `run`'s loop when runners are pending or the scheduler shuts down.
    private let loopWaker = Waker()
    private let maximumSpread: Duration
    private let maximumStartRate: Double

    /// - Parameters:
    ///   - targets: the initial targets.
    ///   - concurrency: probes running at once across all targets.
    ///   - maximumSpread: first ticks are spread over at least `min(interval, maximumSpread)`.
    ///   - maximumStartRate: first ticks per second the spread is widened (up to the interval) to stay under.
    public init(targets: [ProbeTarget], concurrency: Int, pipeline: ProbePipeline, logger: Logger,
                maximumSpread: Duration = .seconds(10), maximumStartRate: Double = 100) {
        self.pipeline = pipeline
        self.semaphore = AsyncSemaphore(value: max(1, concurrency))
        self.logger = logger
        self.maximumSpread = maximumSpread
        self.maximumStartRate = maximumStartRate
        pipeline.states.configure(targets)
        state.withLock { state in
            for target in targets {
                let runner = Runner(target: target)
                state.runners[target.name] = runner
                state.pending.append(runner)
            }
        }
    }

    /// The targets being scheduled, by name.
    public var targetNames: [String] { state.withLock { Array($0.runners.keys).sorted() } }

    public func run() async throws {
        await watchReachability()
        // Graceful shutdown lets probes in flight finish and be stored; cancellation (another service failed)
        // stops the same way, so the group never waits on a sleeping scheduler.
        await withStopHandler {
            await withTaskGroup(of: Void.self) { group in
                while let runners = await self.nextRunners() {
                    for runner in runners {
                        group.addTask { await self.loop(runner) }
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
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
        pipeline.states.configure(targets)
        state.withLock { state in
            let names = Set(targets.map(\.name))
            for (name, runner) in state.runners where !names.contains(name) {
                runner.stop()
                state.runners[name] = nil
                removed.append(name)
            }
            for target in targets {
                if let existing = state.runners[target.name] {
                    if existing.target.isEquivalent(to: target) { continue }
                    existing.stop()
                    changed.append(target.name)
                    let runner = Runner(target: target, predecessor: existing)
                    state.runners[target.name] = runner
                    state.pending.append(runner)
                    continue
                } else {
                    added.append(target.name)
                }
                let runner = Runner(target: target)
                state.runners[target.name] = runner
                state.pending.append(runner)
            }
        }
        loopWaker.wake()
        for name in removed {
            pipeline.alerts?.forget(target: name)
            pipeline.metrics?.targetRemoved(name)
        }
        for name in changed { pipeline.alerts?.forget(target: name) }
        await watchReachability()
        return (added.sorted(), changed.sorted(), removed.sorted())
    }

    /// How long the first round of probes takes to start: the spread window of the longest interval.
    public var firstRoundSpread: Duration {
        let (count, longest) = state.withLock { ($0.runners.count, $0.runners.values.map(\.target.interval).max()) }
        guard let longest else { return .zero }
        return Self.spreadWindow(interval: longest, targets: count, maximumSpread: maximumSpread,
                                 maximumStartRate: maximumStartRate)
    }

    /// The shortest probe interval among the scheduled targets; nil without targets.
    public var shortestInterval: Duration? {
        state.withLock { $0.runners.values.map(\.target.interval).min() }
    }

    /// Targets whose due probe has not started within `threshold` of its tick, or whose probe has run longer than
    /// its timeout plus `threshold`: one line each, for `/healthz`.
    public func overdue(now: ContinuousClock.Instant = .now, after threshold: Duration) -> [String] {
        let runners = state.withLock { $0.shutdown ? [] : Array($0.runners.values) }
        var problems: [String] = []
        for runner in runners where !runner.isStopped {
            let name = runner.target.name
            switch runner.phase.withLock({ $0 }) {
            case .starting:
                continue
            case .due(let tick):
                let late = now - tick
                if late > threshold {
                    problems.append("probe of \(name) due \(Self.whole(late)) s ago has not started")
                }
            case .probing(let since):
                let running = now - since
                if running > runner.target.timeout + threshold {
                    problems.append("probe of \(name) has run for \(Self.whole(running)) s (timeout \(Self.whole(runner.target.timeout)) s)")
                }
            }
        }
        return problems.sorted()
    }

    /// Stops all loops (graceful shutdown); probes in flight finish and are stored.
    public func shutdown() {
        let (runners, watch) = state.withLock { state -> ([Runner], Task<Void, Never>?) in
            state.shutdown = true
            return (Array(state.runners.values), state.reachabilityWatch)
        }
        for runner in runners { runner.stop() }
        watch?.cancel()
        loopWaker.wake()
    }

    /// Waits for runners to start; nil after shutdown.
    private func nextRunners() async -> [Runner]? {
        while true {
            let taken = state.withLock { state -> [Runner]?? in
                if state.shutdown { return .some(nil) }
                guard !state.pending.isEmpty else { return .none }
                defer { state.pending.removeAll() }
                return .some(state.pending)
            }
            if case .some(let runners) = taken { return runners }
            // Cancellation also calls `shutdown()` (see `run`), so a cancelled wait ends the loop.
            guard await loopWaker.wait() else { return nil }
        }
    }

    /// One target's loop: sleep to the tick, take a permit, probe, compute the next tick (skipping missed ones).
    private func loop(_ runner: Runner) async {
        defer { runner.markFinished() }
        // Never two probes of one target: a replaced runner finishes its probe before this one starts.
        if let predecessor = runner.predecessor { await predecessor.waitUntilFinished() }
        let interval = runner.target.interval
        var next = firstTick(runner)
        while !runner.isStopped {
            runner.phase.withLock { $0 = .due(next) }
            let woken = await runner.waker.sleep(until: next)
            if runner.isStopped { break }
            if woken {
                // Reachability came back (or a reload): probe now, then keep the phase from here.
                next = .now
            }
            do {
                try await semaphore.acquire()
            } catch {
                break
            }
            let started = ContinuousClock.now
            runner.phase.withLock { $0 = .probing(since: started) }
            statistics.probeStarted(latenessSeconds: (started - next).inSeconds)
            // A child task probes: its async frames (NIO, TLS, store) live in the child's allocator and are freed
            // when it ends; in this long-lived task they would stay allocated, 12-30 KB per target (heaptrack).
            async let probed = pipeline.run(runner.target)
            let record = await probed
            semaphore.release()
            runner.wasSkipped = record.outcome == .skipped
            next += interval
            let now = ContinuousClock.now
            if next <= now {
                var missed = 0
                while next <= now {
                    next += interval
                    missed += 1
                }
                statistics.ticksSkipped(missed)
                logger.debug("probe took longer than its interval; ticks skipped",
                             metadata: ["target": "\(runner.target.name)", "skipped": "\(missed)"])
            }
        }
    }

    /// Follows the reachability of every target's host: a host that comes back wakes its skipped targets.
    private func watchReachability() async {
        guard let monitor = pipeline.reachability else { return }
        let runners = state.withLock { Array($0.runners.values) }
        let hosts = Array(Set(runners.compactMap(\.target.reachabilityTarget)))
        guard !hosts.isEmpty else { return }
        await monitor.add(hosts)
        let stream = await monitor.changes(for: hosts)
        let task = Task { [weak self] in
            for await evaluation in stream {
                guard let self, evaluation.status != .notReachable else { continue }
                let waking = self.state.withLock { state in
                    state.runners.values.filter { $0.wasSkipped && $0.target.reachabilityTarget == evaluation.target }
                }
                for runner in waking {
                    self.logger.info("host reachable again, probing now",
                                     metadata: ["target": "\(runner.target.name)", "status": "\(evaluation.status.name)"])
                    runner.waker.wake()
                }
            }
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            defer { state.reachabilityWatch = task }
            return state.reachabilityWatch
        }
        previous?.cancel()
        if state.withLock({ $0.shutdown }) { task.cancel() }
    }

    /// A changed target with the same interval takes over its predecessor's next tick (a reload drops none);
    /// any other starts at its place in the spread window.
    private func firstTick(_ runner: Runner) -> ContinuousClock.Instant {
        let interval = runner.target.interval
        if let predecessor = runner.predecessor, predecessor.target.interval == interval,
           case .due(let tick) = predecessor.phase.withLock({ $0 }) {
            return tick
        }
        let count = state.withLock { $0.runners.count }
        let window = Self.spreadWindow(interval: interval, targets: count, maximumSpread: maximumSpread,
                                       maximumStartRate: maximumStartRate)
        return .now + Self.firstTickDelay(name: runner.target.name, window: window,
                                          wallClockNanoseconds: Self.wallClockNanoseconds())
    }

    private static func whole(_ duration: Duration) -> Int64 { duration.components.seconds }

}
