#if canImport(Glibc)
import CNetlink
import Foundation
import Glibc
import Logging
import NetVigilConcurrency
import NetVigilSystem
import Synchronization
#endif

/// The netlink side of `ReachabilityMonitor`: one dedicated thread that blocks in poll(2) on the
/// subscribed `NETLINK_ROUTE` socket and a wake-up pipe. The decisions (mirror, targets, what to look up
/// and publish) are `WatcherStateMachine`'s; this shell owns the sockets and the thread, performs the
/// machine's actions and feeds it what they return. Evaluations go straight into the `EvaluationHub`,
/// control replies through `output`. No timers unless host names are watched (re-resolution) or netlink
/// failed (reopen); zero CPU while nothing changes.
final class ReachabilityWatcher: @unchecked Sendable {
    typealias Command = WatcherStateMachine.Command

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

    /// The rtnetlink groups the event socket joins.
    static let watchedGroups: [UInt32] = [
        CNL_RTNLGRP_LINK, CNL_RTNLGRP_IPV4_IFADDR, CNL_RTNLGRP_IPV6_IFADDR, CNL_RTNLGRP_IPV4_ROUTE,
        CNL_RTNLGRP_IPV6_ROUTE, CNL_RTNLGRP_IPV4_RULE, CNL_RTNLGRP_IPV6_RULE,
    ]

    private let options: ReachabilityMonitor.Options
    private let logger: Logger
    private let output: AsyncStream<Output>.Continuation
    /// Where evaluations go (straight to subscribers, from this thread).
    private let hub: EvaluationHub
    private let shared = Mutex(Shared())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Thread-confined.
    private var machine: WatcherStateMachine

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
        machine = WatcherStateMachine(
            targets: targets, interventions: interventions, hostResolveInterval: options.hostResolveInterval)
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
        while !machine.stopRequested {
            do {
                let events = try NetlinkSocket(
                    groups: Self.watchedGroups, receiveBufferSize: options.receiveBufferSize,
                    forceReceiveBuffer: options.forceReceiveBuffer)
                let requests = try NetlinkSocket()
                machine.connected(dump: try fullDump(requests))
                machine.commandsReceived(takeCommands())
                try run(events: events, requests: requests) {
                    if !started {
                        started = true
                        output.yield(.ready)
                    } else {
                        logger.notice("netlink available again; resynchronized")
                    }
                }
            } catch {
                if !started {
                    output.yield(.failed(error))
                    return
                }
                logger.error("netlink failed, reporting Unknown and retrying", metadata: ["error": "\(error)"])
                for action in machine.failed(date: Date()) { perform(action) }
                waitForWake(timeoutMilliseconds: Self.milliseconds(options.retryInterval))
                machine.commandsReceived(takeCommands())
                for action in machine.failed(date: Date()) { perform(action) }
            }
        }
    }

    /// Performs the machine's actions until it stops; `synchronized` runs at the first wait, when the
    /// first evaluations after the dump are out.
    private func run(
        events: NetlinkSocket, requests: NetlinkSocket, synchronized: () -> Void
    ) throws(ReachabilityError) {
        var fds = [
            pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        var announced = false
        while true {
            let now = ContinuousClock.now
            let action = machine.nextAction(now: now, date: Date())
            switch action {
            case let .wait(deadline):
                if !announced {
                    announced = true
                    synchronized()
                }
                fds[0].revents = 0
                fds[1].revents = 0
                let timeout = Self.timeout(until: deadline, now: now)
                let rc = SystemCall.retryingOnInterrupt { poll(&fds, 2, timeout) }
                if rc < 0 { throw .netlink(operation: "poll", errno: errno) }
                if fds[1].revents != 0 { machine.commandsReceived(takeCommands()) }
                if fds[0].revents & Int16(POLLERR | POLLIN) != 0 { try drain(events: events, requests: requests) }
            case .stop:
                if !announced { synchronized() }
                return
            case .checkNotifications:
                machine.notificationsPending(Self.readable(events.fd))
            case let .lookUpRoutes(addresses):
                try requests.lookupRoutes(addresses) { position, lookup in
                    for action in machine.routeLookedUp(position, lookup) { perform(action) }
                }
            case let .redumpRoutes(family):
                var routes: [RouteInfo] = []
                try requests.dump(type: CNL_RTM_GETROUTE, family: family.rawValue) { message in
                    if case let .newRoute(route, _)? = NetlinkMessage(parsing: message) { routes.append(route) }
                }
                machine.routesDumped(routes, family: family, now: .now)
            case let .resolveHosts(names):
                for name in names {
                    let addresses = SystemProbes.resolve(name)
                    machine.hostResolved(name, addresses: addresses, now: .now)
                }
            case .publish, .reply:
                perform(action)
            }
        }
    }

    /// Performs an action that needs no socket.
    private func perform(_ action: WatcherStateMachine.Action) {
        switch action {
        case let .publish(evaluations, thenYield):
            hub.publish(evaluations)
            // The first evaluation is out: on a busy host let its consumer (just woken) run first.
            if thenYield { sched_yield() }
        case let .reply(snapshots, acks):
            for id in snapshots { output.yield(.snapshot(id, machine.mirror)) }
            for id in acks { output.yield(.ack(id)) }
        default:
            preconditionFailure("\(action) needs the sockets")
        }
    }

    /// Reads everything pending (non-blocking) into the machine. ENOBUFS → log, count, full re-dump.
    private func drain(events: NetlinkSocket, requests: NetlinkSocket) throws(ReachabilityError) {
        while true {
            switch try events.receive(dontWait: true) {
            case let .messages(count):
                try events.forEachMessage(count: count) { message in
                    if let parsed = NetlinkMessage(parsing: message) { machine.notificationReceived(parsed) }
                }
            case .wouldBlock:
                return
            case .overrun, .truncated:
                let resyncs = machine.overrun()
                logger.warning(
                    "netlink receive buffer overrun (ENOBUFS); notifications were lost, re-dumping",
                    metadata: ["resyncs": "\(resyncs)"])
                output.yield(.resync(resyncs))
                // Discard what is queued: the dump below supersedes it.
                while true {
                    let next = try events.receive(dontWait: true)
                    if case .wouldBlock = next { break }
                }
                machine.resynchronized(dump: try fullDump(requests))
            }
        }
    }

    /// Links, addresses, then routes and rules of each family.
    private func fullDump(_ requests: NetlinkSocket) throws(ReachabilityError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        let collect: (UnsafeRawPointer) -> Void = { message in
            if let parsed = NetlinkMessage(parsing: message) { messages.append(parsed) }
        }
        let unspecified = UInt8(AF_UNSPEC)
        try requests.dump(type: CNL_RTM_GETLINK, family: unspecified, collect)
        try requests.dump(type: CNL_RTM_GETADDR, family: unspecified, collect)
        for family in [IPAddress.Family.ipv4, .ipv6] {
            try requests.dump(type: CNL_RTM_GETROUTE, family: family.rawValue, collect)
            try requests.dump(type: CNL_RTM_GETRULE, family: family.rawValue, collect)
        }
        return messages
    }

    /// Empties the wake-up pipe and takes the queued commands.
    private func takeCommands() -> [Command] {
        var drained: UInt8 = 0
        while read(wakeRead, &drained, 1) > 0 {}
        return shared.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
    }

    private static func readable(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }

    private func waitForWake(timeoutMilliseconds: Int32) {
        var fd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, timeoutMilliseconds)
    }

    /// The poll timeout for a deadline: -1 without one, 0 when it has passed.
    static func timeout(until deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Int32 {
        guard let deadline else { return -1 }
        return deadline <= now ? 0 : min(milliseconds(deadline - now), Int32.max - 1) + 1
    }

    static func milliseconds(_ duration: Duration) -> Int32 { Int32(clamping: duration.inMilliseconds) }
}
