import Logging
import NetVigilConcurrency
import NetVigilReachability
import NetVigilStore
import ServiceLifecycle

/// Runs the reachability monitor inside the daemon and records every change in `reachability_events`: of the
/// targets the monitor has at start, and of targets added later with `watch(_:)` (a reload).
///
/// When netlink cannot be opened the targets stay `Unknown` and the recorder retries, instead of
/// taking the daemon down.
public struct ReachabilityRecorder: Service {
    public let monitor: ReachabilityMonitor
    private let writer: StoreWriter
    private let logger: Logger
    private let retryInterval: Duration
    private let metrics: AgentMetrics?
    private let events: EventHub?
    private let additions: AsyncStream<[ReachabilityTarget]>
    private let addition: AsyncStream<[ReachabilityTarget]>.Continuation

    /// - Parameter metrics: updated with every change (reachability series and the netlink resync total).
    public init(monitor: ReachabilityMonitor, writer: StoreWriter, logger: Logger, retryInterval: Duration = .seconds(5),
                metrics: AgentMetrics? = nil, events: EventHub? = nil) {
        self.monitor = monitor
        self.writer = writer
        self.logger = logger
        self.retryInterval = retryInterval
        self.metrics = metrics
        self.events = events
        (additions, addition) = AsyncStream.makeStream(of: [ReachabilityTarget].self)
    }

    /// Adds `targets` to the monitor (evaluated before this returns) and records their changes from now on;
    /// targets already recorded are left as they are (the recording loop keeps track of those).
    public func watch(_ targets: [ReachabilityTarget]) async {
        await monitor.add(targets)
        addition.yield(targets)
    }

    public func run() async throws {
        await withStopHandler {
            await self.record()
        } onStop: {
            Task { await self.monitor.stop() }
        }
    }

    private func record() async {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await monitor.start()
                break
            } catch {
                // A stop during start ends the watcher before it is ready: that is no failure to retry.
                guard !Task.isCancelled, !Task.isShuttingDownGracefully else { break }
                logger.error("reachability watcher unavailable, targets stay Unknown; retrying",
                             metadata: ["error": "\(error)", "retry_in": "\(retryInterval)"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: retryInterval) }
            }
        }
        guard await monitor.isRunning else { return }
        let targets = await monitor.targets
        let changes = await monitor.changes(for: targets)
        if Task.isCancelled || Task.isShuttingDownGracefully {
            // The stop came while the watcher was starting or this subscribed: it may have found nothing to stop
            // yet, or ended the streams before this one existed. A stop after this check ends `changes`.
            await monitor.stop()
            return
        }
        logger.info("reachability watcher started", metadata: ["targets": "\(targets.map(\.description))"])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.record(changes: changes)
                self.addition.finish()  // the monitor stopped: every stream has ended
            }
            var subscribed = Set(targets)
            for await added in additions {
                let new = added.filter { subscribed.insert($0).inserted }
                guard !new.isEmpty else { continue }
                logger.info("reachability targets added", metadata: ["targets": "\(new.map(\.description))"])
                group.addTask { await self.record(changes: await self.monitor.changes(for: new)) }
            }
        }
        logger.debug("reachability recorder stopped")
    }

    private func record(changes: AsyncStream<ReachabilityEvaluation>) async {
        for await evaluation in changes {
            logger.notice("reachability changed", metadata: [
                "target": "\(evaluation.target)", "status": "\(evaluation.status.name)",
                "flags": "\(evaluation.flags.names.joined(separator: ","))", "interface": "\(evaluation.interface ?? "-")",
            ])
            let record = evaluation.record
            writer.submit(WriteBatch(reachabilityEvents: [record]))
            events?.publish(.reachability(record))
            if let metrics {
                metrics.reachabilityChanged(evaluation)
                metrics.netlinkResyncs(total: await monitor.resyncCount)
            }
        }
    }
}
