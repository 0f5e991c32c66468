import NetVigilReachability

/// The probe scheduler's decisions, without clocks, tasks or I/O: every instant comes in as an argument and every
/// decision goes out as a value, so it is tested with made-up instants (``ProbeScheduler`` is the shell that sleeps,
/// takes permits and probes).
///
/// Each target is a slot in one of these phases: not yet placed (the scheduler has not started), waiting for the
/// probe of its previous configuration to finish (changed by a reload while probing), scheduled (its tick is in the
/// ``TickQueue``), queued (due, waiting for a concurrency permit) or probing.
struct ProbeTimeline {
    /// A due probe for the shell: take a permit, ``begin(_:now:)``, probe, ``finished(_:skipped:now:wallClockNanoseconds:)``.
    struct Start: Equatable, Sendable {
        var name: String
        /// Identifies this tick: a reload or a wake that replaced it makes ``begin(_:now:)`` refuse it.
        var stamp: UInt64
        /// When the probe was due (its lateness is measured from here).
        var tick: ContinuousClock.Instant
    }

    enum Phase: Equatable {
        case unplaced
        case awaitingPredecessor
        case scheduled(ContinuousClock.Instant, stamp: UInt64)
        case queued(ContinuousClock.Instant, stamp: UInt64)
        case probing(since: ContinuousClock.Instant, tick: ContinuousClock.Instant, stamp: UInt64)
    }

    struct Slot {
        var target: ProbeTarget
        var phase: Phase
        /// The last probe's result was `skipped` (host not reachable): a host coming back probes it at once.
        var wasSkipped = false
    }

    /// The probe still running for a target that a reload changed or removed.
    private struct Predecessor {
        var stamp: UInt64
        var tick: ContinuousClock.Instant
        var interval: Duration
    }

    /// What a reload did, by name (sorted).
    struct Change: Equatable {
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
    }

    private(set) var slots: [String: Slot] = [:]
    private var predecessors: [String: Predecessor] = [:]
    private var queue = TickQueue()
    private var nextStamp: UInt64 = 0
    /// The scheduler runs: new targets get their first tick at once rather than at ``place(now:wallClockNanoseconds:)``.
    private(set) var isPlaced = false
    private(set) var isShutDown = false
    let maximumSpread: Duration
    let maximumStartRate: Double

    init(targets: [ProbeTarget], maximumSpread: Duration, maximumStartRate: Double) {
        self.maximumSpread = maximumSpread
        self.maximumStartRate = maximumStartRate
        slots.reserveCapacity(targets.count)
        for target in targets { slots[target.name] = Slot(target: target, phase: .unplaced) }
    }

    // MARK: Reading

    /// The targets, by name.
    var names: [String] { slots.keys.sorted() }
    var count: Int { slots.count }
    var shortestInterval: Duration? { slots.values.lazy.map(\.target.interval).min() }
    var longestInterval: Duration? { slots.values.lazy.map(\.target.interval).max() }
    /// Ticks in the queue, stale ones included (for tests).
    var queuedTicks: Int { queue.count }
    /// The phase of one target (for tests and `/healthz`).
    func phase(of name: String) -> Phase? { slots[name]?.phase }

    /// The earliest scheduled tick; stale queue entries on top are dropped on the way.
    mutating func nextDue() -> ContinuousClock.Instant? {
        while let first = queue.first {
            if isCurrent(first) { return first.due }
            queue.removeFirst()
        }
        return nil
    }

    /// Due probes that have not started within `threshold` of their tick, probes that have run longer than their
    /// timeout plus `threshold`: one line each, sorted (for `/healthz`).
    func overdue(now: ContinuousClock.Instant, after threshold: Duration) -> [String] {
        guard !isShutDown else { return [] }
        var problems: [String] = []
        for (name, slot) in slots {
            switch slot.phase {
            case .unplaced, .awaitingPredecessor:
                continue
            case .scheduled(let tick, _), .queued(let tick, _):
                let late = now - tick
                if late > threshold {
                    problems.append("probe of \(name) due \(late.components.seconds) s ago has not started")
                }
            case .probing(let since, _, _):
                let running = now - since
                if running > slot.target.timeout + threshold {
                    problems.append("probe of \(name) has run for \(running.components.seconds) s "
                        + "(timeout \(slot.target.timeout.components.seconds) s)")
                }
            }
        }
        return problems.sorted()
    }

    // MARK: Events

    /// The scheduler starts: every target gets its first tick at its place in the spread window.
    mutating func place(now: ContinuousClock.Instant, wallClockNanoseconds: Int64) {
        isPlaced = true
        // Ticks first, then the writes: writing `slots` while iterating it would copy the whole dictionary.
        let ticks = slots.compactMap { name, slot in
            slot.phase == .unplaced ? (name, firstTick(slot.target, now: now, wallClockNanoseconds: wallClockNanoseconds)) : nil
        }
        for (name, tick) in ticks { schedule(name, at: tick) }
    }

    /// Takes every tick due at `now` off the queue: these targets wait for a permit now.
    mutating func due(now: ContinuousClock.Instant) -> [Start] {
        guard !isShutDown else { return [] }
        var starts: [Start] = []
        while let first = queue.first, first.due <= now {
            queue.removeFirst()
            guard isCurrent(first) else { continue }
            slots[first.name]?.phase = .queued(first.due, stamp: first.stamp)
            starts.append(Start(name: first.name, stamp: first.stamp, tick: first.due))
        }
        return starts
    }

    /// The permit is taken: the target to probe now, or nil when the tick was dropped meanwhile (the target was
    /// removed, or the scheduler shuts down).
    mutating func begin(_ start: Start, now: ContinuousClock.Instant) -> ProbeTarget? {
        guard !isShutDown, let slot = slots[start.name], case .queued(let tick, let stamp) = slot.phase,
              stamp == start.stamp else { return nil }
        slots[start.name]?.phase = .probing(since: now, tick: tick, stamp: stamp)
        return slot.target
    }

    /// A probe ended: schedules the target's next tick (the first one after `now`: missed ones are skipped, not
    /// queued) and returns how many ticks were skipped. A changed target that waited for this probe takes over its
    /// next tick when its interval is the same, else starts at its place in the spread window.
    mutating func finished(_ start: Start, skipped: Bool, now: ContinuousClock.Instant,
                           wallClockNanoseconds: Int64) -> Int {
        if let slot = slots[start.name], case .probing(_, let tick, let stamp) = slot.phase, stamp == start.stamp {
            slots[start.name]?.wasSkipped = skipped
            let (next, missed) = Self.advance(tick, by: slot.target.interval, past: now)
            if isShutDown {
                slots[start.name]?.phase = .unplaced
            } else {
                schedule(start.name, at: next)
            }
            return missed
        }
        guard let predecessor = predecessors[start.name], predecessor.stamp == start.stamp else { return 0 }
        predecessors[start.name] = nil
        guard let slot = slots[start.name], slot.phase == .awaitingPredecessor else { return 0 }
        if isShutDown {
            slots[start.name]?.phase = .unplaced
            return 0
        }
        guard slot.target.interval == predecessor.interval else {
            schedule(start.name, at: firstTick(slot.target, now: now, wallClockNanoseconds: wallClockNanoseconds))
            return 0
        }
        let (next, missed) = Self.advance(predecessor.tick, by: predecessor.interval, past: now)
        schedule(start.name, at: next)
        return missed
    }

    /// Applies a reloaded target list. Unchanged targets keep everything; a changed target keeps its next tick when
    /// its interval is the same (else it starts at its place in the spread window), and when its previous
    /// configuration is probing it waits for that probe to end; a due one waiting for a permit probes with the new
    /// settings. Removed targets stop (a probe in flight finishes and is stored).
    mutating func update(targets: [ProbeTarget], now: ContinuousClock.Instant, wallClockNanoseconds: Int64) -> Change {
        var change = Change()
        var names = Set<String>(minimumCapacity: targets.count)
        for target in targets { names.insert(target.name) }
        for name in slots.keys.filter({ !names.contains($0) }) {
            change.removed.append(name)
            if let slot = slots.removeValue(forKey: name) { retire(name, slot) }
        }
        var toPlace: [String] = []
        for target in targets {
            let name = target.name
            guard var slot = slots[name] else {
                change.added.append(name)
                if predecessors[name] != nil {
                    slots[name] = Slot(target: target, phase: .awaitingPredecessor)
                } else {
                    slots[name] = Slot(target: target, phase: .unplaced)
                    toPlace.append(name)
                }
                continue
            }
            if slot.target.isEquivalent(to: target) {
                // The same settings: keep the schedule but hold the new copy, so the reloaded configuration and the
                // timeline share one set of targets instead of keeping the previous load's alive as well.
                slots[name]?.target = target
                continue
            }
            change.changed.append(name)
            let sameInterval = slot.target.interval == target.interval
            switch slot.phase {
            case .scheduled where !sameInterval:
                slot.phase = .unplaced
                toPlace.append(name)
            case .probing:
                retire(name, slot)
                slot.phase = .awaitingPredecessor
            case .unplaced, .awaitingPredecessor, .scheduled, .queued:
                break
            }
            slot.target = target
            slot.wasSkipped = false
            slots[name] = slot
        }
        // Placed after the list is complete: the spread window depends on how many targets there are.
        if isPlaced && !isShutDown {
            for name in toPlace {
                guard let target = slots[name]?.target else { continue }
                schedule(name, at: firstTick(target, now: now, wallClockNanoseconds: wallClockNanoseconds))
            }
        }
        if queue.count > 2 * slots.count + 1_024 {
            let current = slots
            queue.compact { current[$0.name]?.phase == .scheduled($0.due, stamp: $0.stamp) }
        }
        change.added.sort()
        change.changed.sort()
        change.removed.sort()
        return change
    }

    /// The host `host` is reachable again: every target of it whose last probe was skipped is due at once.
    /// Returns their names.
    mutating func wake(host: ReachabilityTarget, now: ContinuousClock.Instant) -> [String] {
        guard !isShutDown else { return [] }
        var woken: [String] = []
        for (name, slot) in slots where slot.wasSkipped && slot.target.reachabilityTarget == host {
            guard case .scheduled(let due, _) = slot.phase, due > now else { continue }
            woken.append(name)
        }
        for name in woken { schedule(name, at: now) }
        return woken.sorted()
    }

    /// The scheduler stops: no new tick is handed out or started; probes in flight still report back.
    mutating func shutdown() {
        isShutDown = true
    }

    // MARK: Helpers

    private mutating func schedule(_ name: String, at due: ContinuousClock.Instant) {
        let stamp = nextStamp
        nextStamp &+= 1
        slots[name]?.phase = .scheduled(due, stamp: stamp)
        queue.insert(TickQueue.Entry(due: due, stamp: stamp, name: name))
    }

    /// A probe in flight of a target being removed or replaced is remembered, so its successor waits for it.
    private mutating func retire(_ name: String, _ slot: Slot) {
        guard case .probing(_, let tick, let stamp) = slot.phase else { return }
        predecessors[name] = Predecessor(stamp: stamp, tick: tick, interval: slot.target.interval)
    }

    private func isCurrent(_ entry: TickQueue.Entry) -> Bool {
        slots[entry.name]?.phase == .scheduled(entry.due, stamp: entry.stamp)
    }

    private func firstTick(_ target: ProbeTarget, now: ContinuousClock.Instant,
                           wallClockNanoseconds: Int64) -> ContinuousClock.Instant {
        let window = ProbeScheduler.spreadWindow(interval: target.interval, targets: slots.count,
                                                 maximumSpread: maximumSpread, maximumStartRate: maximumStartRate)
        return now + ProbeScheduler.firstTickDelay(name: target.name, window: window,
                                                   wallClockNanoseconds: wallClockNanoseconds)
    }

    /// The first tick after `now` on the grid `tick + k × interval`, and how many grid ticks were missed before it.
    static func advance(_ tick: ContinuousClock.Instant, by interval: Duration,
                        past now: ContinuousClock.Instant) -> (next: ContinuousClock.Instant, missed: Int) {
        let next = tick + interval
        guard next <= now, interval > .zero else { return (next, 0) }
        var missed = Int((now - next) / interval) + 1
        // The division is in floating point: settle the grid tick exactly.
        while next + interval * missed <= now { missed += 1 }
        while missed > 1, next + interval * (missed - 1) > now { missed -= 1 }
        return (next + interval * missed, missed)
    }
}
