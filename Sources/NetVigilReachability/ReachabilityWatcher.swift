import CNetlink
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The netlink side of `ReachabilityMonitor`: one dedicated thread that blocks in poll(2) on the
/// subscribed `NETLINK_ROUTE` socket and a wake-up pipe, keeps the mirror, asks the kernel for each
/// target's route and reports evaluations in order through `output`. No timers unless host names are
/// watched (re-resolution) or netlink failed (reopen); zero CPU while nothing changes.
final class ReachabilityWatcher: @unchecked Sendable {
    enum Command {
        case add([ReachabilityTarget], ack: UInt64)
        case remove([ReachabilityTarget])
        case intervention(ReachabilityTarget, Bool, ack: UInt64)
        case snapshot(UInt64)
        case stop
    }

    enum Output: Sendable {
        /// Initial dump done and first evaluations sent.
        case ready
        /// Netlink could not be opened at start; the thread has ended.
        case failed(ReachabilityError)
        /// Evaluations whose state changed since last reported.
        case evaluations([ReachabilityEvaluation])
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
        var addresses: [IPAddress] = []
        var resolvedAt: ContinuousClock.Instant?
    }

    private let options: ReachabilityMonitor.Options
    private let logger: Logger
    private let output: AsyncStream<Output>.Continuation
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

    init(
        options: ReachabilityMonitor.Options, logger: Logger, output: AsyncStream<Output>.Continuation,
        targets: [ReachabilityTarget], interventions: Set<ReachabilityTarget>
    ) throws(ReachabilityError) {
        var fds: [Int32] = [0, 0]
        let rc = cnl_wake_pipe(&fds)
        guard rc == 0 else { throw .netlink(operation: "pipe", errno: -rc) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.options = options
        self.logger = logger
        self.output = output
        for target in targets where states[target] == nil {
            order.append(target)
            states[target] = TargetState(interventionRequired: interventions.contains(target))
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
                try recompute(requests)
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
            let rc = poll(&fds, 2, nextResolveTimeout())
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
            if fds[0].revents & Int16(POLLERR | POLLIN) != 0 {
                changed = try drain(events: events, requests: requests)
            }
            if changed.contains(.links) || changed.contains(.addresses) {
                // The kernel flushes IPv4 routes of a link going down or losing its last address without
                // RTM_DELROUTE notifications: refresh them from a dump.
                try redumpRoutes(family: .ipv4, requests: requests)
            }
            let routing = !changed.isEmpty
            if resolveHosts(force: routing) { needsRecompute = true }
            if routing || needsRecompute {
                try recompute(requests)
            } else {
                flushAcks()
            }
        }
    }

    /// Reads everything pending (non-blocking) into the mirror. ENOBUFS → log, count, full re-dump.
    private func drain(events: NetlinkSocket, requests: NetlinkSocket) throws(ReachabilityError) -> NetlinkMirror.Change {
        var changed: NetlinkMirror.Change = []
        while true {
            switch try events.receive(dontWait: true) {
            case let .messages(count):
                try events.forEachMessage(count: count) { message in
                    changed.formUnion(mirror.apply(message: message, probe: SystemProbes.sysfsLink))
                }
            case .wouldBlock:
                return changed
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
    }

    private func redumpRoutes(family: IPAddress.Family, requests: NetlinkSocket) throws(ReachabilityError) {
        var routes: [RouteInfo] = []
        try requests.dump(type: RTNL.getRoute, family: family.rawValue) { message in
            if cnl_nlmsg_type(message) == RTNL.newRoute, let route = NetlinkMirror.route(from: message),
               route.flags & RTNL.rtmCloned == 0 {
                routes.append(route)
            }
        }
        mirror.removeRoutes(family: family)
        for route in routes { mirror.routeTable[route.key] = route }
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
        for command in commands {
            switch command {
            case let .add(targets, ack):
                for target in targets where states[target] == nil {
                    order.append(target)
                    states[target] = TargetState()
                    recompute = true
                }
                pendingAcks.append(ack)
                recompute = true
            case let .remove(targets):
                for target in targets {
                    states[target] = nil
                    lastSent[target] = nil
                }
                order.removeAll { states[$0] == nil }
            case let .intervention(target, required, ack):
                if states[target] == nil {
                    order.append(target)
                    states[target] = TargetState()
                }
                states[target]?.interventionRequired = required
                pendingAcks.append(ack)
                recompute = true
            case let .snapshot(id):
                pendingSnapshots.append(id)
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
            state.addresses = SystemProbes.resolve(name)
            state.resolvedAt = ContinuousClock.now
            states[target] = state
            resolved = true
        }
        return resolved
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
    private func recompute(_ requests: NetlinkSocket) throws(ReachabilityError) {
        let now = Date()
        var addresses: [IPAddress] = []
        var position: [IPAddress: Int] = [:]
        func need(_ address: IPAddress) {
            if position[address] == nil {
                position[address] = addresses.count
                addresses.append(address)
            }
        }
        for target in order {
            switch target {
            case .default: break
            case .address: if let address = target.ipAddress { need(address) }
            case .host: states[target]?.addresses.forEach(need)
            }
        }
        let lookups = try requests.lookupRoutes(addresses)
        var changed: [ReachabilityEvaluation] = []
        for target in order {
            let intervention = states[target]?.interventionRequired ?? false
            var evaluation: ReachabilityEvaluation
            switch target {
            case .default:
                evaluation = ReachabilityEvaluator.evaluateDefault(
                    mirror: mirror, interventionRequired: intervention, time: now)
            case .address:
                guard let address = target.ipAddress, let slot = position[address] else { continue }
                evaluation = ReachabilityEvaluator.evaluate(
                    target: target, address: address, lookup: lookups[slot], mirror: mirror,
                    interventionRequired: intervention, time: now)
            case .host:
                let candidates = (states[target]?.addresses ?? []).compactMap { address -> ReachabilityEvaluation? in
                    guard let slot = position[address] else { return nil }
                    return ReachabilityEvaluator.evaluate(
                        target: target, address: address, lookup: lookups[slot], mirror: mirror,
                        interventionRequired: intervention, time: now)
                }
                // Reachable when any address is; a name that does not resolve is NotReachable.
                evaluation = candidates.max { ReachabilityEvaluator.rank($0) < ReachabilityEvaluator.rank($1) }
                    ?? ReachabilityEvaluation(
                        target: target, flags: intervention ? .interventionRequired : [], time: now)
                if let best = candidates.first(where: {
                    ReachabilityEvaluator.rank($0) == ReachabilityEvaluator.rank(evaluation)
                }) {
                    evaluation = best  // first in resolver order among the best
                }
            }
            if let last = lastSent[target], last.hasSameState(as: evaluation) { continue }
            lastSent[target] = evaluation
            changed.append(evaluation)
        }
        if !changed.isEmpty { output.yield(.evaluations(changed)) }
        flushAcks()
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
        for target in order {
            let unknown = ReachabilityEvaluation.unknown(target, time: now)
            if let last = lastSent[target], last.hasSameState(as: unknown) { continue }
            lastSent[target] = unknown
            changed.append(unknown)
        }
        if !changed.isEmpty { output.yield(.evaluations(changed)) }
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
