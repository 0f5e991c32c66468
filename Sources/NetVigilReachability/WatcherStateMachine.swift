import Foundation

/// The decisions of `ReachabilityWatcher`, without I/O: it keeps the mirror and the targets, takes
/// commands, parsed netlink messages, host resolutions, route lookups and the clock as inputs, and says
/// what to do next as `Action`s (look these addresses up, re-dump these routes, publish these evaluations,
/// wait until this deadline). The watcher performs the actions on its sockets and reports the results.
///
/// The shell calls `nextAction(now:date:)` after each action and performs what it returns; inputs that
/// arrive while an action runs (`routeLookedUp`, `notificationReceived`, ...) are applied at once.
struct WatcherStateMachine {
    enum Command: Sendable {
        case add([ReachabilityTarget], ack: UInt64)
        case remove([ReachabilityTarget])
        case intervention(ReachabilityTarget, Bool, ack: UInt64)
        case snapshot(UInt64)
        /// Drain pending notifications, recompute every target, then acknowledge.
        case refresh(ack: UInt64)
        case stop
    }

    enum Action: Equatable {
        /// Ask the kernel for the route to each address and report each answer (by position) with
        /// `routeLookedUp(_:_:)`.
        case lookUpRoutes([IPAddress])
        /// A preemption point of a recompute: report with `notificationsPending(_:)` whether the event
        /// socket has notifications queued.
        case checkNotifications
        /// Dump the routes of a family and report them with `routesDumped(_:family:now:)`.
        case redumpRoutes(IPAddress.Family)
        /// Resolve these host names and report each with `hostResolved(_:addresses:now:)`.
        case resolveHosts([String])
        /// Hand these evaluations to subscribers; `thenYield`: the first of a recompute, let its consumer
        /// run before continuing.
        case publish([ReachabilityEvaluation], thenYield: Bool)
        /// Answer `snapshot` commands with the current `mirror`, then acknowledge commands.
        case reply(snapshots: [UInt64], acks: [UInt64])
        /// Nothing to do: wait for commands or notifications, at most until the deadline (`nil`: no timer),
        /// report them, then ask again.
        case wait(until: ContinuousClock.Instant?)
        /// A `stop` command arrived.
        case stop
    }

    struct TargetState {
        var interventionRequired = false
        /// The parsed address of an address target (parsed once), or the resolved addresses of a host name.
        var addresses: [IPAddress] = []
        var resolvedAt: ContinuousClock.Instant?

        init(_ target: ReachabilityTarget, interventionRequired: Bool = false) {
            self.interventionRequired = interventionRequired
            if case .address = target, let address = target.ipAddress { addresses = [address] }
        }
    }

    /// What an address target's last evaluation was computed from: when a recompute finds the same, the
    /// evaluation cannot have changed and is not computed again.
    struct EvaluationInputs: Equatable {
        var lookup: RouteLookup
        var link: LinkInfo?
        var addressGeneration: UInt64
        var interventionRequired: Bool
    }

    /// What a wait brought: the mirror before it, what notifications changed, whether commands, host
    /// names or the confirming re-dump ask for a recompute.
    struct WakeUp {
        var linksBefore: [Int32: LinkInfo]
        var addressesBefore: [AddressInfo.Key: AddressInfo]
        var changed: NetlinkMirror.Change = []
        var resynced = false
        var needsRecompute = false
    }

    enum Stage: Equatable {
        /// Waiting for `connected(dump:)`.
        case disconnected
        /// A fresh dump is in: resolve every host name, then recompute every target (not preemptible).
        case connected(hostsResolved: Bool)
        /// Inside `wait`: commands and notifications accumulate in `wake`.
        case waiting
        /// Deciding what the wake-up needs, after resolving due host names.
        case woken(hostsResolved: Bool)
        /// A recompute (`pass`) runs.
        case recomputing
        /// Nothing in progress: the next action is `wait`.
        case idle
    }

    /// How long after a re-dump for a possible silent flush the confirming one runs.
    static let confirmRedumpDelay = Duration.milliseconds(50)
    /// Consecutive recomputes cut short by notifications at most (so a storm cannot starve any target).
    static let maxPreemptions = 3

    let hostResolveInterval: Duration
    /// Reads sysfs details of a new or renamed link.
    let linkProbe: NetlinkMirror.LinkProbe

    var mirror = NetlinkMirror()
    var order: [ReachabilityTarget] = []
    var states: [ReachabilityTarget: TargetState] = [:]
    var lastSent: [ReachabilityTarget: ReachabilityEvaluation] = [:]
    var inputs: [ReachabilityTarget: EvaluationInputs] = [:]
    /// Overruns (ENOBUFS/truncation) resynchronized so far.
    var resyncs = 0
    var stopRequested = false
    var stage = Stage.disconnected
    var pendingAcks: [UInt64] = []
    var pendingSnapshots: [UInt64] = []
    /// A recompute was cut short because new notifications arrived; the next one must cover every target.
    var recomputeOwed = false
    /// Consecutive recomputes cut short.
    var preemptions = 0
    var plan: LookupPlan?
    /// Counts changes of the mirror's addresses (sources and their usability come from them).
    var addressGeneration: UInt64 = 0
    /// Link kinds, preferred sources and address texts shared by the evaluations of a recompute.
    var cache = EvaluationCache()
    /// An IPv4 route re-dump was due when a recompute was cut short.
    var redumpOwed = false
    /// When to re-dump IPv4 routes once more after a re-dump for a possible silent flush: the kernel sends
    /// RTM_DELADDR before it flushes (and the flush sends nothing), so a re-dump made at once can still see
    /// routes the flush removes a moment later.
    var confirmRedumpAt: ContinuousClock.Instant?
    /// The owed re-dump is the confirming one (it asks for no further confirmation).
    var confirmingRedump = false
    var wake: WakeUp?
    var pass: Pass?
    /// Actions decided but not returned yet, in order.
    var queued: [Action] = []

    init(
        targets: [ReachabilityTarget], interventions: Set<ReachabilityTarget>, hostResolveInterval: Duration,
        linkProbe: @escaping NetlinkMirror.LinkProbe = SystemProbes.sysfsLink
    ) {
        self.hostResolveInterval = hostResolveInterval
        self.linkProbe = linkProbe
        for target in targets where states[target] == nil {
            order.append(target)
            states[target] = TargetState(target, interventionRequired: interventions.contains(target))
        }
    }

    // MARK: - Next action

    /// What to do next. `now` drives host re-resolution and the confirming re-dump; `date` stamps the
    /// evaluations of a recompute that starts now.
    mutating func nextAction(now: ContinuousClock.Instant, date: Date) -> Action {
        while true {
            if !queued.isEmpty { return queued.removeFirst() }
            switch stage {
            case .disconnected:
                return .wait(until: nil)
            case .connected(hostsResolved: false):
                stage = .connected(hostsResolved: true)
                let names = hostsToResolve(force: true, now: now)
                if !names.isEmpty { return .resolveHosts(names) }
            case .connected(hostsResolved: true):
                startPass(hint: .everything, date: date, preemptible: false)
            case .waiting:
                if stopRequested { return .stop }
                if wake?.changed.contains(.addresses) == true { addressGeneration &+= 1 }
                stage = .woken(hostsResolved: false)
            case .woken(hostsResolved: false):
                stage = .woken(hostsResolved: true)
                let names = hostsToResolve(force: wake?.changed.isEmpty == false, now: now)
                if !names.isEmpty {
                    wake?.needsRecompute = true
                    return .resolveHosts(names)
                }
            case .woken(hostsResolved: true):
                decide(now: now, date: date)
            case .recomputing:
                if let action = advancePass() { return action }
            case .idle:
                if stopRequested { return .stop }
                wake = WakeUp(linksBefore: mirror.links, addressesBefore: mirror.addressTable)
                stage = .waiting
                return .wait(until: nextDeadline(now: now))
            }
        }
    }

    /// After a wait: recompute when notifications changed the mirror, commands or host names ask for it,
    /// the confirming re-dump is due or a recompute is owed; otherwise only answer commands.
    private mutating func decide(now: ContinuousClock.Instant, date: Date) {
        guard var wake else {
            stage = .idle
            return
        }
        self.wake = nil
        if let due = confirmRedumpAt, now >= due {
            confirmRedumpAt = nil
            redumpOwed = true
            confirmingRedump = true
            wake.needsRecompute = true
        }
        guard !wake.changed.isEmpty || wake.needsRecompute || recomputeOwed else {
            flushAcks()
            stage = .idle
            return
        }
        let hint = wake.resynced
            ? RecomputeHint.everything
            : RecomputeHint(
                changed: wake.changed, linksBefore: wake.linksBefore, addressesBefore: wake.addressesBefore,
                mirror: mirror, commandsOrTimers: wake.needsRecompute)
        startPass(hint: hint, date: date, preemptible: true)
    }

    /// The wait's deadline: the next host resolution or the confirming re-dump, whichever is sooner.
    func nextDeadline(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var deadline = confirmRedumpAt
        for target in order {
            guard case .host = target else { continue }
            guard let at = states[target]?.resolvedAt else { return now }
            let due = at + hostResolveInterval
            deadline = min(deadline ?? due, due)
        }
        return deadline
    }

    /// Queues the answers to `snapshot` commands and the acknowledgements.
    mutating func flushAcks() {
        guard !pendingSnapshots.isEmpty || !pendingAcks.isEmpty else { return }
        queued.append(.reply(snapshots: pendingSnapshots, acks: pendingAcks))
        pendingSnapshots = []
        pendingAcks = []
    }
}
