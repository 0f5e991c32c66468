import Foundation
import Logging

/// Watches reachability of targets, like `AFNetworkReachabilityManager`, from netlink.
///
/// ```swift
/// let monitor = ReachabilityMonitor(targets: [.default])
/// try await monitor.start()                       // opens netlink, dumps, first evaluation
/// let now = await monitor.current(.default)       // ReachabilityEvaluation?
/// for await evaluation in await monitor.changes(for: .default) { ... }  // first value at once
/// await monitor.stop()
/// ```
/// Also a swift-service-lifecycle `Service` (`run()` starts, waits for graceful shutdown, stops).
public actor ReachabilityMonitor {
    /// Tuning knobs.
    public struct Options: Sendable {
        /// Netlink receive buffer (SO_RCVBUFFORCE when permitted, else SO_RCVBUF, capped by rmem_max).
        public var receiveBufferSize: Int
        /// Try SO_RCVBUFFORCE (root / CAP_NET_ADMIN) before SO_RCVBUF.
        public var forceReceiveBuffer: Bool
        /// How often host names are re-resolved (also on every routing change).
        public var hostResolveInterval: Duration
        /// How long to wait before reopening netlink after a failure.
        public var retryInterval: Duration
        /// Watch another network namespace (e.g. `/var/run/netns/NAME`): the watcher thread setns(2)es into it.
        public var networkNamespacePath: String?

        public init(
            receiveBufferSize: Int = 8 << 20, forceReceiveBuffer: Bool = true,
            hostResolveInterval: Duration = .seconds(60), retryInterval: Duration = .seconds(1),
            networkNamespacePath: String? = nil
        ) {
            self.receiveBufferSize = receiveBufferSize
            self.forceReceiveBuffer = forceReceiveBuffer
            self.hostResolveInterval = hostResolveInterval
            self.retryInterval = retryInterval
            self.networkNamespacePath = networkNamespacePath
        }
    }

    public nonisolated let options: Options
    private let logger: Logger
    private var targetOrder: [ReachabilityTarget] = []
    private var interventions: Set<ReachabilityTarget> = []
    /// The captive-portal check's message for each path found behind a portal (`setInterventionRequired(_:for:)`).
    var pathInterventions: [NetworkPath: String] = [:]
    private var watcher: ReachabilityWatcher?
    /// Latest evaluations and subscribers; the watcher thread publishes into it directly.
    private let hub = EvaluationHub()
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var snapshotWaiters: [UInt64: CheckedContinuation<NetlinkMirror?, Never>] = [:]
    private var startWaiter: CheckedContinuation<Void, any Error>?
    private var nextID: UInt64 = 0

    /// Number of netlink overruns (ENOBUFS) that forced a full resynchronization.
    public private(set) var resyncCount = 0
    /// True between a successful `start()` and `stop()`.
    public private(set) var isRunning = false

    /// - Parameters:
    ///   - targets: watched from the start (more are added by `add(_:)` and `changes(for:)`).
    public init(
        targets: [ReachabilityTarget] = [.default], options: Options = Options(),
        logger: Logger = Logger(label: "netvigil.reachability")
    ) {
        self.options = options
        self.logger = logger
        for target in targets where !targetOrder.contains(target) { targetOrder.append(target) }
        hub.watch(targetOrder)
    }

    /// The targets being watched, in the order they were added.
    public var targets: [ReachabilityTarget] { targetOrder }

    /// Opens netlink, dumps links/addresses/routes/rules and evaluates every target. Returns once the first
    /// evaluations are available; throws `ReachabilityError` when netlink (or the namespace) is unavailable.
    public func start() async throws {
        guard watcher == nil else { return }
        let (stream, continuation) = AsyncStream<ReachabilityWatcher.Output>.makeStream()
        let watcher = try ReachabilityWatcher(
            options: options, logger: logger, output: continuation, hub: hub, targets: targetOrder,
            interventions: interventions)
        self.watcher = watcher
        Task { [weak self] in
            for await output in stream {
                await self?.handle(output)
            }
            await self?.watcherEnded(watcher)
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startWaiter = continuation
            watcher.start()
        }
    }

    /// Stops the watcher thread and finishes every `changes` stream.
    public func stop() {
        watcher?.send(.stop)
        watcher = nil
        isRunning = false
        hub.finishAll()
        for waiter in waiters.values { waiter.resume() }
        waiters = [:]
        for waiter in snapshotWaiters.values { waiter.resume(returning: nil) }
        snapshotWaiters = [:]
    }

    /// The latest evaluation of `target`, `nil` before its first evaluation.
    public func current(_ target: ReachabilityTarget) -> ReachabilityEvaluation? {
        hub.current(target)
    }

    /// The evaluation of `target` after the watcher has applied every netlink notification queued so far and
    /// re-evaluated every target: use it to confirm a status right after a connection failed (the link may have
    /// gone down a moment ago). Same as `current` when the watcher is not running.
    public func refreshed(_ target: ReachabilityTarget) async -> ReachabilityEvaluation? {
        await roundTrip { .refresh(ack: $0) }
        return hub.current(target)
    }

    /// Adds targets; when running, returns after they have been evaluated.
    public func add(_ targets: [ReachabilityTarget]) async {
        let new = targets.reduce(into: [ReachabilityTarget]()) { list, target in
            if !targetOrder.contains(target), !list.contains(target) { list.append(target) }
        }
        guard !new.isEmpty else { return }
        targetOrder.append(contentsOf: new)
        hub.watch(new)
        guard watcher != nil else { return }
        await roundTrip { .add(new, ack: $0) }
    }

    /// Stops watching targets (their `changes` streams stay open but receive nothing more).
    public func remove(_ targets: [ReachabilityTarget]) {
        targetOrder.removeAll { targets.contains($0) }
        hub.unwatch(targets)
        watcher?.send(.remove(targets))
    }

    /// Sets or clears the captive-portal input for a target: `interventionRequired`, plus `connectionRequired` when
    /// the route is reachable (so the status becomes NotReachable, as AFNetworking maps a captive network).
    /// When running, returns after the target has been re-evaluated.
    public func setInterventionRequired(_ required: Bool, for target: ReachabilityTarget) async {
        if required { interventions.insert(target) } else { interventions.remove(target) }
        if !targetOrder.contains(target) {
            targetOrder.append(target)
            hub.watch([target])
        }
        guard watcher != nil else { return }
        await roundTrip { .intervention(target, required, ack: $0) }
    }

    /// Evaluations of `target`: the current one immediately (`Unknown` if none yet), then one value each
    /// time its status or flags change (Alamofire's rule). Adds the target if needed.
    public func changes(for target: ReachabilityTarget) async -> AsyncStream<ReachabilityEvaluation> {
        await changes(for: [target])
    }

    /// Merged evaluations of several targets: each target's current one immediately, then changes.
    ///
    /// Values are yielded straight from the watcher thread (no hop through this actor).
    public func changes(for targets: [ReachabilityTarget]) async -> AsyncStream<ReachabilityEvaluation> {
        await add(targets)
        return hub.subscribe(targets)
    }

    /// A copy of the watcher's mirror of links, addresses, routes and rules (`nil` when not running).
    public func mirrorSnapshot() async -> NetlinkMirror? {
        guard let watcher else { return nil }
        nextID += 1
        let id = nextID
        return await withCheckedContinuation { (continuation: CheckedContinuation<NetlinkMirror?, Never>) in
            snapshotWaiters[id] = continuation
            if !watcher.send(.snapshot(id)) {
                snapshotWaiters[id] = nil
                continuation.resume(returning: nil)
            }
        }
    }

    // MARK: - Internals

    private func roundTrip(_ command: (UInt64) -> ReachabilityWatcher.Command) async {
        guard let watcher else { return }
        nextID += 1
        let id = nextID
        let message = command(id)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiters[id] = continuation
            if !watcher.send(message) {
                waiters[id] = nil
                continuation.resume()
            }
        }
    }

    private func handle(_ output: ReachabilityWatcher.Output) {
        switch output {
        case .ready:
            isRunning = true
            startWaiter?.resume()
            startWaiter = nil
        case let .failed(error):
            watcher = nil
            startWaiter?.resume(throwing: error)
            startWaiter = nil
        case let .ack(id):
            waiters.removeValue(forKey: id)?.resume()
        case let .snapshot(id, mirror):
            snapshotWaiters.removeValue(forKey: id)?.resume(returning: mirror)
        case let .resync(count):
            resyncCount = count
        }
    }

    private func watcherEnded(_ ended: ReachabilityWatcher) {
        if watcher === ended {
            watcher = nil
            isRunning = false
        }
        if let startWaiter {
            self.startWaiter = nil
            startWaiter.resume(throwing: ReachabilityError.notRunning)
        }
    }
}
