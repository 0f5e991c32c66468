import Logging
import ServiceLifecycle

/// Deletes history older than the retention window, periodically and in small batches.
public struct RetentionService: Service {
    public let store: Store
    public let retention: Duration
    public let interval: Duration
    private let logger: Logger
    private let afterRelease: @Sendable () async -> Void

    /// `interval` defaults to a tenth of the window, at most 10 minutes and at least 10 seconds. `afterRelease` runs
    /// after each pass that gave SQLite's memory back (the daemon trims the heap the pass freed).
    public init(store: Store, retention: Duration, interval: Duration? = nil, logger: Logger,
                afterRelease: @escaping @Sendable () async -> Void = {}) {
        self.store = store
        self.retention = retention
        self.interval = interval ?? max(.seconds(10), min(.seconds(600), retention / 10))
        self.logger = logger
        self.afterRelease = afterRelease
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.pruneOnce()
                // With no export reading, the WAL is copied back and truncated (exports checkpoint as they end),
                // and the page caches the writes since the last pass filled are given back.
                if self.store.exportsInProgress == 0 {
                    _ = try? await self.store.checkpoint()
                    await self.store.releaseMemory()
                    await self.afterRelease()
                }
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// One retention pass; errors are logged, not fatal (the next pass tries again).
    @discardableResult
    public func pruneOnce(now: Timestamp = .now()) async -> PruneSummary? {
        let cutoff = now.adding(.zero - retention)
        do {
            let summary = try await store.prune(olderThan: cutoff)
            if summary.total > 0 {
                logger.info("retention removed old history", metadata: [
                    "probe_results": "\(summary.probeResults)", "reachability_events": "\(summary.reachabilityEvents)",
                    "alerts": "\(summary.alerts)", "chains": "\(summary.chains)", "certificates": "\(summary.certificates)", "cutoff": "\(cutoff)",
                ])
            }
            return summary
        } catch {
            logger.error("retention pass failed", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
