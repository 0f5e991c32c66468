import CNetlink
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The netlink side of `ReachabilityMonitor`: one dedicated thread that blocks in poll(2) on the
/// subscribed `NETLINK_ROUTE` socket and a wake-up pipe, keeps the mirror, asks the kernel for each
/// target's route and publishes evaluations in order into the `EvaluationHub` (control replies go through
/// `output`). No timers unless host names are
/// watched (re-resolution) or netlink failed (reopen); zero CPU while nothing changes.
final class ReachabilityWatcher: @unchecked Sendable {
    enum Command {
        case add([ReachabilityTarget], ack: UInt64)
        case remove([ReachabilityTarget])
        case intervention(ReachabilityTarget, Bool, ack: UInt64)
        case snapshot(UInt64)
        /// Drain pending notifications, recompute every target, then acknowledge.
        case refresh(ack: UInt64)
        case stop
    }

    enum Output: Sendable {
        /// Initial dump done and first evaluations sent.
        case ready
        /// Netlink could not be opened at start; the thread has ended.
        case failed(ReachabilityError)
        case ack(UInt64)
        case snapshot(UInt64, NetlinkMirror)
        /// Total overruns (ENOBUFS/truncation) resynchronized so far.
        case resync(Int)
    }

    private struct Shared {
        var commands: [Command] = []
        var closed = false
    }

    private struct TargetState {
        var interventionRequired = false
        /// The parsed address of an address target (parsed once), or the resolved addresses of a host name.
        var addresses: [IPAddress] = []
        var resolvedAt: ContinuousClock.Instant?

        init(_ target: ReachabilityTarget, interventionRequired: Bool = false) {
            self.interventionRequired = interventionRequired
            if case .address = target, let address = target.ipAddress { addresses = [address] }
        }
    }

    private let options: ReachabilityMonitor.Options
    private let logger: Logger
    private let output: AsyncStream<Output>.Continuation
    /// Where evaluations go (straight to subscribers, from this thread).
    private let hub: EvaluationHub
    private let shared = Locked(Shared())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Thread-confined state.
    private var mirror = NetlinkMirror()
    private var order: [ReachabilityTarget] = []
    private var states: [ReachabilityTarget: TargetState] = [:]
    private var lastSent: [ReachabilityTarget: ReachabilityEvaluation] = [:]
    private var resyncs = 0
    private var stopRequested = false
    private var pendingAcks: [UInt64] = []
    private var pendingSnapshots: [UInt64] = []
    /// A recompute was cut short because new notifications arrived; the next one must cover every target.
    private var recomputeOwed = false
    /// Consecutive recomputes cut short (bounded so a notification storm cannot starve any target).
    private var preemptions = 0
    /// Addresses to look up (deduplicated, in target order) and which targets wait for which; rebuilt only
    /// when targets or resolutions change.
    private struct LookupPlan {
        /// One lookup slot per distinct address.
        var addresses: [IPAddress] = []
        /// Per target (index in `order`): its slots (none for `default` or an unresolved name).
        var slotsOfTarget: [[Int]] = []
        /// Per slot: the targets (indices in `order`) with that address.
        var targetsOfSlot: [[Int]] = []
    }
    private var plan: LookupPlan?
    /// What an address target's last evaluation was computed from: when a recompute finds the same, the
    /// evaluation cannot have changed and is not computed again.
    private struct EvaluationInputs: Equatable {
        var lookup: RouteLookup
        var link: LinkInfo?
        var addressGeneration: UInt64
        var interventionRequired: Bool
    }
    private var inputs: [ReachabilityTarget: EvaluationInputs] = [:]
    /// Counts changes of the mirror's addresses (sources and their usability come from them).
    private var addressGeneration: UInt64 = 0
    /// Link kinds, preferred sources and address texts shared by the evaluations of a recompute.
    private var cache = EvaluationCache()
    /// An IPv4 route re-dump was due when a recompute was cut short.
    private var redumpOwed = false
    /// When to re-dump IPv4 routes once more after a re-dump for a possible silent flush: the kernel sends
    /// RTM_DELADDR before it flushes (and the flush sends nothing), so a re-dump made at once can still see routes
    /// the flush removes a moment later.
    private var confirmRedumpAt: ContinuousClock.Instant?
    /// The owed re-dump is the confirming one (it asks for no further confirmation).
    private var confirmingRedump = false
    /// How long after such a re-dump the confirming one runs.
    static let confirmRedumpDelay = Duration.milliseconds(50)
    static let maxPreemptions = 3

    init(
        options: ReachabilityMonitor.Options, logger: Logger, output: AsyncStream<Output>.Continuation,
        hub: EvaluationHub, targets: [ReachabilityTarget], interventions: Set<ReachabilityTarget>
    ) throws(ReachabilityError) {
        var fds: [Int32] = [0, 0]
        let rc = cnl_wake_pipe(&fds)
        guard rc == 0 else { throw .netlink(operation: "pipe", errno: -rc) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.options = options
        self.logger = logger
        self.output = output
        self.hub = hub
        for target in targets where states[target] == nil {
            order.append(target)
            states[target] = TargetState(target, interventionRequired: interventions.contains(target))
        }
    }

    /// Starts the thread.
    func start() {
        let thread = Thread { [self] in self.threadMain() }
        thread.name = "netvigil-netlink"
        thread.start()
    }

    /// Queues a command and wakes the thread. Returns false when the thread has ended.
    @discardableResult
    func send(_ command: Command) -> Bool {
        shared.withLock { state in
            guard !state.closed else { return false }
            state.commands.append(command)
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            return true
        }
    }

    // MARK: - Thread

    private func threadMain() {
        defer {
            shared.withLock { state in
                state.closed = true
                close(wakeRead)
                close(wakeWrite)
            }
            output.finish()
        }
        if let path = options.networkNamespacePath {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                output.yield(.failed(.namespace(path: path, errno: errno)))
                return
            }
            let rc = cnl_setns_net(fd)
            close(fd)
            if rc < 0 {
                output.yield(.failed(.namespace(path: path, errno: -rc)))
                return
            }
        }
        var started = false
        while !stopRequested {
            do {
                let events = try NetlinkSocket(
                    groups: RTNL.watchedGroups, receiveBufferSize: options.receiveBufferSize,
                    forceReceiveBuffer: options.forceReceiveBuffer)
                let requests = try NetlinkSocket()
                try fullDump(requests)
                takeCommands()
                resolveHosts(force: true)
                try recompute(requests, hint: .everything, events: nil)
                if !started {
                    started = true
                    output.yield(.ready)
                } else {
                    logger.notice("netlink available again; resynchronized")
                }
                try run(events: events, requests: requests)
            } catch {
                if !started {
                    output.yield(.failed(error))
                    return
                }
                logger.error("netlink failed, reporting Unknown and retrying", metadata: ["error": "\(error)"])
                publishUnknown()
                waitForWake(timeoutMilliseconds: Self.milliseconds(options.retryInterval))
                takeCommands()
                publishUnknown()
            }
        }
    }

    private func run(events: NetlinkSocket, requests: NetlinkSocket) throws(ReachabilityError) {
        var fds = [
            pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while !stopRequested {
            fds[0].revents = 0
            fds[1].revents = 0
            let rc = poll(&fds, 2, nextTimeout())
            if rc < 0 {
                if errno == EINTR { continue }
                throw .netlink(operation: "poll", errno: errno)
            }
            var changed: NetlinkMirror.Change = []
            var needsRecompute = false
            if fds[1].revents != 0 {
                needsRecompute = takeCommands() || needsRecompute
                if stopRequested { return }
            }
            let linksBefore = mirror.links
            let addressesBefore = mirror.addressTable
            var resynced = false
            if fds[0].revents & Int16(POLLERR | POLLIN) != 0 {
                (changed, resynced) = try drain(events: events, requests: requests)
            }
            let routing = !changed.isEmpty
            if resolveHosts(force: routing) { needsRecompute = true }
            if let due = confirmRedumpAt, ContinuousClock.now >= due {
                confirmRedumpAt = nil
                redumpOwed = true
                confirmingRedump = true
                needsRecompute = true
            }
            guard routing || needsRecompute || recomputeOwed else {
                flushAcks()
                continue
            }
            var hint = RecomputeHint.everything
            if !resynced {
                let changedLinks = Self.changedLinks(before: linksBefore, after: mirror.links)
                var touched = changedLinks
                if changed.contains(.addresses) {
                    for (key, info) in addressesBefore where mirror.addressTable[key] != info { touched.insert(info.index) }
                    for (key, info) in mirror.addressTable where addressesBefore[key] != info { touched.insert(info.index) }
                }
                hint = RecomputeHint(
                    changedLinkNames: Set(touched.flatMap { index in
                        [linksBefore[index]?.name, mirror.links[index]?.name].compactMap { $0 }
                    }),
                    redumpIPv4Routes: needsIPv4RouteRedump(
                        changedLinks: changedLinks, linksBefore: linksBefore, addressesBefore: addressesBefore),
                    all: changed.contains(.routes) || changed.contains(.rules) || needsRecompute)
            }
            try recompute(requests, hint: hint, events: events)
        }
    }

    /// What changed since the last recompute, to order the work (the recompute still covers every target).
    struct RecomputeHint {
        /// Names (old and new) of links whose record or addresses changed: targets last routed through them
        /// go first.
        var changedLinkNames: Set<String>
        /// The kernel may have flushed IPv4 routes without notifications: re-dump them before `default`.
        var redumpIPv4Routes: Bool
        /// Not only link state changed (routes, rules, addresses, commands): every target counts as affected.
        var all: Bool

        static let everything = RecomputeHint(changedLinkNames: [], redumpIPv4Routes: false, all: true)
    }

    static func changedLinks(before: [Int32: LinkInfo], after: [Int32: LinkInfo]) -> Set<Int32> {
        var changed = Set<Int32>()
        for (index, link) in after where before[index] != link { changed.insert(index) }
        for index in before.keys where after[index] == nil { changed.insert(index) }
        return changed
    }

    /// The kernel flushes IPv4 routes without `RTM_DELROUTE` when a link goes down, is removed or loses its
    /// last address (and routes whose preferred source was a removed address), and it sets or clears
    /// `RTNH_F_LINKDOWN` on carrier changes without telling anyone. Re-dump IPv4 routes when any of that can
    /// have happened: an IPv4 address was removed, or a changed link carries (or carried) IPv4 routes in
    /// the mirror, or an IPv4 route has several nexthops (their devices are not all mirrored).
    private func needsIPv4RouteRedump(
        changedLinks: Set<Int32>, linksBefore: [Int32: LinkInfo], addressesBefore: [AddressInfo.Key: AddressInfo]
    ) -> Bool {
        for (key, info) in addressesBefore where info.address.family == .ipv4 && mirror.addressTable[key] == nil {
            return true
        }
        guard !changedLinks.isEmpty else { return false }
        for index in changedLinks where linksBefore[index] != nil && mirror.links[index] == nil { return true }
        return mirror.routeTable.values.contains { route in
            route.family == .ipv4 && (changedLinks.contains(route.outputInterface) || route.nexthopCount > 1)
        }
    }

    /// Reads everything pending (non-blocking) into the mirror. ENOBUFS → log, count, full re-dump.
    private func drain(
        events: NetlinkSocket, requests: NetlinkSocket
    ) throws(ReachabilityError) -> (NetlinkMirror.Change, resynced: Bool) {
        var changed: NetlinkMirror.Change = []
        var resynced = false
        while true {
            switch try events.receive(dontWait: true) {
            case let .messages(count):
                try events.forEachMessage(count: count) { message in
                    changed.formUnion(mirror.apply(message: message, probe: SystemProbes.sysfsLink))
                }
            case .wouldBlock:
                if changed.contains(.addresses) { addressGeneration &+= 1 }
                return (changed, resynced)
            case .overrun, .truncated:
                resyncs += 1
                logger.warning(
                    "netlink receive buffer overrun (ENOBUFS); notifications were lost, re-dumping",
                    metadata: ["resyncs": "\(resyncs)"])
                output.yield(.resync(resyncs))
                // Discard what is queued: the dump below supersedes it.
                while true {
                    let next = try events.receive(dontWait: true)
                    if case .wouldBlock = next { break }
                }
                try fullDump(requests)
                resynced = true
                changed = [.links, .addresses, .routes, .rules]
            }
        }
    }

    private func fullDump(_ requests: NetlinkSocket) throws(ReachabilityError) {
        var fresh = NetlinkMirror()
        let probe: NetlinkMirror.LinkProbe = { [mirror] name, index in
            if let old = mirror.links[index], old.name == name { return (old.devtype, old.isWireless) }
            return SystemProbes.sysfsLink(name: name, index: index)
        }
        try requests.dump(type: RTNL.getLink, family: RTNL.afUnspec) { fresh.apply(message: $0, probe: probe) }
        try requests.dump(type: RTNL.getAddr, family: RTNL.afUnspec) { fresh.apply(message: $0, probe: probe) }
        for family in [RTNL.afInet, RTNL.afInet6] {
            try requests.dump(type: RTNL.getRoute, family: family) { fresh.apply(message: $0, probe: probe) }
            try requests.dump(type: RTNL.getRule, family: family) { fresh.apply(message: $0, probe: probe) }
        }
        mirror = fresh
        addressGeneration &+= 1
    }

    /// Replaces the mirror's routes of `family` with a dump; returns true when some route had disappeared
    /// without a notification.
    @discardableResult
    private func redumpRoutes(family: IPAddress.Family, requests: NetlinkSocket) throws(ReachabilityError) -> Bool {
        var routes: [RouteInfo] = []
        try requests.dump(type: RTNL.getRoute, family: family.rawValue) { message in
            if cnl_nlmsg_type(message) == RTNL.newRoute, let route = NetlinkMirror.route(from: message),
               route.flags & RTNL.rtmCloned == 0 {
                routes.append(route)
            }
        }
        let fresh = Set(routes.map(\.key))
        let vanished = mirror.routeTable.keys.contains { $0.family == family && !fresh.contains($0) }
        mirror.removeRoutes(family: family)
        for route in routes { mirror.routeTable[route.key] = route }
        return vanished
    }

    /// Applies queued commands; returns true when evaluations must be recomputed.
    @discardableResult
    private func takeCommands() -> Bool {
        var drained: UInt8 = 0
        while read(wakeRead, &drained, 1) > 0 {}
        let commands = shared.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
        var recompute = false
        if commands.contains(where: { if case .snapshot = $0 { false } else { true } }) { plan = nil }
        for command in commands {
            switch command {
            case let .add(targets, ack):
                for target in targets where states[target] == nil {
                    order.append(target)
                    states[target] = TargetState(target)
                    recompute = true
                }
                pendingAcks.append(ack)
                recompute = true
            case let .remove(targets):
                for target in targets {
                    states[target] = nil
                    lastSent[target] = nil
                    inputs[target] = nil
                }
                order.removeAll { states[$0] == nil }
            case let .intervention(target, required, ack):
                if states[target] == nil {
                    order.append(target)
                    states[target] = TargetState(target)
                }
                states[target]?.interventionRequired = required
                pendingAcks.append(ack)
                recompute = true
            case let .snapshot(id):
                pendingSnapshots.append(id)
                recompute = true
            case let .refresh(ack):
                pendingAcks.append(ack)
                recompute = true
            case .stop:
                stopRequested = true
            }
        }
        return recompute
    }

    /// Resolves host targets that are due (or all when `force`). Returns true when any was resolved.
    @discardableResult
    private func resolveHosts(force: Bool) -> Bool {
        let now = ContinuousClock.now
        var resolved = false
        for target in order {
            guard case let .host(name) = target, var state = states[target] else { continue }
            let due = state.resolvedAt.map { now - $0 >= options.hostResolveInterval } ?? true
            guard force || due else { continue }
            let addresses = SystemProbes.resolve(name)
            if addresses != state.addresses { plan = nil }
            state.addresses = addresses
            state.resolvedAt = ContinuousClock.now
            states[target] = state
            resolved = true
        }
        return resolved
    }

    /// The poll timeout: the next host resolution or the confirming re-dump, whichever is sooner (-1: none).
    private func nextTimeout() -> Int32 {
        let resolve = nextResolveTimeout()
        guard let due = confirmRedumpAt else { return resolve }
        let confirm = Int32(max(0, Self.milliseconds(due - ContinuousClock.now) + 1))
        return resolve < 0 ? confirm : min(resolve, confirm)
    }

    private func nextResolveTimeout() -> Int32 {
        let now = ContinuousClock.now
        var soonest: Duration?
        for target in order {
            guard case .host = target else { continue }
            guard let at = states[target]?.resolvedAt else { return 0 }
            let remaining = options.hostResolveInterval - (now - at)
            soonest = min(soonest ?? remaining, remaining)
        }
        guard let soonest else { return -1 }
        return max(0, Self.milliseconds(soonest) + 1)
    }

    /// Asks the kernel for every target's route and reports the evaluations whose state changed.
    ///
    /// Latency matters more than batching here, so the work is ordered and results are published as they
    /// are ready (each target's events stay in order; only the order across targets varies):
    /// 1. targets most likely affected by the change — last routed through a link whose record or addresses
    ///    changed, never evaluated, or without a route; every target when routes, rules or commands changed
    ///    or after a resync — are looked up first;
    /// 2. the IPv4 routes are re-dumped if the kernel may have flushed some silently, then `default` is
    ///    evaluated from the mirror;
    /// 3. the remaining targets are looked up.
    /// The first affected target is looked up alone, before the others are sorted; then lookups go out in
    /// growing chunks (2, 4, ... 64 requests) and evaluations are published in growing batches (1, 2, 4, ...)
    /// as the kernel's answers are read, straight into the hub (no actor hop). Address targets whose route,
    /// output link and the mirror's addresses are as at their last evaluation are not evaluated again.
    /// Before each chunk but the first, if `events` has new notifications, the recompute stops (at most
    /// `maxPreemptions` times in a row): the caller drains them and recomputes every target again (with any
    /// owed re-dump), so no target is skipped.
    private func recompute(
        _ requests: NetlinkSocket, hint: RecomputeHint, events: NetlinkSocket?
    ) throws(ReachabilityError) {
        let now = Date()
        cache.reset()
        if plan == nil {
            var plan = LookupPlan()
            var position: [IPAddress: Int] = [:]
            for target in order {
                var slots: [Int] = []
                for address in states[target]?.addresses ?? [] {
                    let slot: Int
                    if let known = position[address] {
                        slot = known
                    } else {
                        slot = plan.addresses.count
                        position[address] = slot
                        plan.addresses.append(address)
                        plan.targetsOfSlot.append([])
                    }
                    if !slots.contains(slot) {
                        slots.append(slot)
                        plan.targetsOfSlot[slot].append(plan.slotsOfTarget.count)
                    }
                }
                plan.slotsOfTarget.append(slots)
            }
            self.plan = plan
        }
        let plan = self.plan!
        func isAffected(_ target: ReachabilityTarget) -> Bool {
            guard !hint.all, let interface = lastSent[target]?.interface else { return true }
            return hint.changedLinkNames.contains(interface)
        }
        // The first affected target is looked up and published before the others are sorted: after a
        // change, the time to the first event counts most.
        let seed = order.firstIndex { target in
            if case .default = target { return false }
            return isAffected(target)
        }

        var lookups = [RouteLookup?](repeating: nil, count: plan.addresses.count)
        /// Per target: slots of the current chunk still unanswered.
        var remaining = [Int](repeating: 0, count: order.count)
        var requested = [Bool](repeating: false, count: plan.addresses.count)
        var slots: [Int] = []
        slots.reserveCapacity(64)
        var changed: [ReachabilityEvaluation] = []
        var flushAt = 1
        func publish(_ evaluation: ReachabilityEvaluation) {
            if let last = lastSent[evaluation.target], last.hasSameState(as: evaluation) { return }
            lastSent[evaluation.target] = evaluation
            changed.append(evaluation)
            if changed.count >= flushAt {
                hub.publish(changed)
                changed.removeAll(keepingCapacity: true)
                if flushAt == 1 {
                    // The first evaluation is out: on a busy host let its consumer (just woken) run before
                    // this thread computes the rest.
                    sched_yield()
                }
                flushAt *= 2
            }
        }
        /// The evaluation of `order[index]`, or nil when it has not changed (or cannot be made yet).
        func evaluate(_ index: Int) -> ReachabilityEvaluation? {
            let target = order[index]
            let intervention = states[target]?.interventionRequired ?? false
            switch target {
            case .default:
                return ReachabilityEvaluator.evaluateDefault(
                    mirror: mirror, interventionRequired: intervention, time: now, cache: &cache)
            case .address:
                guard let slot = plan.slotsOfTarget[index].first, let lookup = lookups[slot] else { return nil }
                var link: LinkInfo?
                if case let .route(route) = lookup { link = mirror.links[route.outputInterface] }
                let current = EvaluationInputs(
                    lookup: lookup, link: link, addressGeneration: addressGeneration,
                    interventionRequired: intervention)
                if inputs[target] == current, lastSent[target] != nil { return nil }
                inputs[target] = current
                return ReachabilityEvaluator.evaluate(
                    target: target, address: plan.addresses[slot], lookup: lookup, mirror: mirror,
                    interventionRequired: intervention, time: now, cache: &cache)
            case .host:
                let candidates = plan.slotsOfTarget[index].compactMap { slot -> ReachabilityEvaluation? in
                    guard let lookup = lookups[slot] else { return nil }
                    return ReachabilityEvaluator.evaluate(
                        target: target, address: plan.addresses[slot], lookup: lookup, mirror: mirror,
                        interventionRequired: intervention, time: now, cache: &cache)
                }
                // Reachable when any address is; a name that does not resolve is NotReachable.
                var evaluation = candidates.max { ReachabilityEvaluator.rank($0) < ReachabilityEvaluator.rank($1) }
                    ?? ReachabilityEvaluation(
                        target: target, flags: intervention ? .interventionRequired : [], time: now)
                if let best = candidates.first(where: {
                    ReachabilityEvaluator.rank($0) == ReachabilityEvaluator.rank(evaluation)
                }) {
                    evaluation = best  // first in resolver order among the best
                }
                return evaluation
            }
        }
        /// Looks up the addresses of `targets` not looked up yet and publishes each target as soon as all
        /// of its addresses are answered.
        func lookUp(_ targets: ArraySlice<Int>) throws(ReachabilityError) {
            slots.removeAll(keepingCapacity: true)
            for index in targets {
                var count = 0
                for slot in plan.slotsOfTarget[index] where lookups[slot] == nil {
                    if !requested[slot] {
                        requested[slot] = true
                        slots.append(slot)
                    }
                    count += 1
                }
                remaining[index] = count
                if count == 0, let evaluation = evaluate(index) { publish(evaluation) }
            }
            guard !slots.isEmpty else { return }
            try requests.lookupRoutes(slots.map { plan.addresses[$0] }) { position, lookup in
                let slot = slots[position]
                lookups[slot] = lookup
                for index in plan.targetsOfSlot[slot] where remaining[index] > 0 {
                    remaining[index] -= 1
                    if remaining[index] == 0, let evaluation = evaluate(index) { publish(evaluation) }
                }
            }
        }

        // Growing chunks: the kernel answers a whole batch inside one send, so a small first batch gets
        // the first answers out sooner; later batches amortize the system calls.
        // Nothing affected (e.g. a link no target routes over changed): no first event to hurry, start at 4.
        var chunk = 4
        var started = false
        if let seed {
            try lookUp([seed])
            started = true
            chunk = 2
        }
        var first: [Int] = []
        var rest: [Int] = []
        var defaultIndex: Int?
        for (index, target) in order.enumerated() where index != seed {
            if case .default = target {
                defaultIndex = index
            } else if isAffected(target) {
                first.append(index)
            } else {
                rest.append(index)
            }
        }
        /// Looks up `targets` chunk by chunk; false when new notifications preempted the recompute.
        func lookUpInChunks(_ targets: [Int]) throws(ReachabilityError) -> Bool {
            var start = targets.startIndex
            while start < targets.endIndex {
                if started, let events, preemptions < Self.maxPreemptions, Self.readable(events.fd) {
                    return false
                }
                started = true
                let end = min(start + chunk, targets.endIndex)
                try lookUp(targets[start..<end])
                chunk = min(chunk * 2, 64)
                start = end
            }
            return true
        }
        var complete = try lookUpInChunks(first)
        var redumped = false
        if complete {
            if hint.redumpIPv4Routes || redumpOwed {
                redumped = true
                // The kernel flushes IPv4 routes of a link going down or losing its last address without
                // RTM_DELROUTE notifications: refresh them from a dump (the lookups above did not need the
                // mirror's routes; `default` does).
                let flushed = try redumpRoutes(family: .ipv4, requests: requests)
                // A re-dump for fresh changes is confirmed once, a moment later; the confirming one is not
                // (unless fresh changes asked for a re-dump too).
                if hint.redumpIPv4Routes || !confirmingRedump {
                    confirmRedumpAt = ContinuousClock.now + Self.confirmRedumpDelay
                }
                confirmingRedump = false
                redumpOwed = false
                if flushed {
                    // The kernel flushes right after sending the notifications we woke on, so the lookups
                    // above may predate it: look every target up again (only changes are published).
                    lookups = [RouteLookup?](repeating: nil, count: plan.addresses.count)
                    requested = [Bool](repeating: false, count: plan.addresses.count)
                    rest = (seed.map { [$0] } ?? []) + first + rest
                }
            }
            if let defaultIndex, let evaluation = evaluate(defaultIndex) { publish(evaluation) }
            complete = try lookUpInChunks(rest)
        }
        if !complete {
            // New notifications arrived: the caller drains them and recomputes every target, so nothing
            // is skipped, only brought up to date first.
            preemptions += 1
            recomputeOwed = true
            if hint.redumpIPv4Routes && !redumped { redumpOwed = true }
            if !changed.isEmpty { hub.publish(changed) }
            return
        }
        preemptions = 0
        recomputeOwed = false
        if !changed.isEmpty { hub.publish(changed) }
        flushAcks()
    }

    private static func readable(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }

    private func flushAcks() {
        for id in pendingSnapshots { output.yield(.snapshot(id, mirror)) }
        pendingSnapshots = []
        for id in pendingAcks { output.yield(.ack(id)) }
        pendingAcks = []
    }

    private func publishUnknown() {
        var changed: [ReachabilityEvaluation] = []
        let now = Date()
        inputs = [:]
        for target in order {
            let unknown = ReachabilityEvaluation.unknown(target, time: now)
            if let last = lastSent[target], last.hasSameState(as: unknown) { continue }
            lastSent[target] = unknown
            changed.append(unknown)
        }
        if !changed.isEmpty { hub.publish(changed) }
        flushAcks()
    }

    private func waitForWake(timeoutMilliseconds: Int32) {
        var fd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, timeoutMilliseconds)
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }
}
