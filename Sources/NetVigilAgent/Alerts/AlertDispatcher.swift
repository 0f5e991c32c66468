import Foundation
import Logging
import NetVigilHTTP
import NetVigilStore
import NetVigilTrust
import ServiceLifecycle
import Synchronization

/// Delivers the `alerts` outbox: due pending rows go to their sinks; a row is marked delivered only after the sink
/// acknowledged it (2xx / exit 0), failures are retried with exponential backoff and full jitter, forever.
///
/// At-least-once: rows written by a process that died (even `kill -9`) are delivered by the next one, because the
/// outbox is the database. Call `wake()` after committing new rows so delivery starts at once; due retries are also
/// picked up by a periodic check. Stops on graceful shutdown (undelivered rows stay pending).
public final class AlertDispatcher: Service, Sendable {
    private struct Settings {
        var sinks: [String: AlertSink]
        var retry: AlertRetry
    }

    public let store: Store
    private let settings: Mutex<Settings>
    private let logger: Logger
    private let metrics: AgentMetrics?
    private let prober: HTTPProber
    private let pollInterval: Duration
    private let batchSize: Int
    private let concurrency: Int
    private let waker = Waker()
    private let stopped = Atomic<Bool>(false)
    private let trustStore = Mutex<TrustStore?>(nil)

    /// - Parameters:
    ///   - configuration: the `alerts:` section (sinks and retry).
    ///   - metrics: counts deliveries (`alertSent`) and the outbox size (`alertsPending`).
    ///   - pollInterval: how often due retries are looked for at the latest (at most 1 s is sensible).
    ///   - batchSize: rows taken per pass.
    ///   - concurrency: deliveries in flight at once.
    public init(store: Store, configuration: AlertsSection, logger: Logger, metrics: AgentMetrics? = nil,
                prober: HTTPProber = HTTPProber(), pollInterval: Duration = .seconds(1), batchSize: Int = 64,
                concurrency: Int = 8) {
        self.store = store
        settings = Mutex(Settings(sinks: Dictionary(configuration.sinks.map { ($0.name, $0) }) { first, _ in first },
                                  retry: configuration.retry))
        self.logger = logger
        self.metrics = metrics
        self.prober = prober
        self.pollInterval = pollInterval
        self.batchSize = max(1, batchSize)
        self.concurrency = max(1, concurrency)
    }

    /// Applies reloaded sinks and retry settings; rows for a sink no longer configured stay pending.
    public func update(configuration: AlertsSection) {
        settings.withLock {
            $0 = Settings(sinks: Dictionary(configuration.sinks.map { ($0.name, $0) }) { first, _ in first },
                          retry: configuration.retry)
        }
        waker.wake()
    }

    /// Starts a delivery pass now (call after committing alert rows).
    public func wake() {
        waker.wake()
    }

    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await self.loop()
            } onGracefulShutdown: {
                self.stop()
            }
        } onCancel: {
            self.stop()
        }
        logger.debug("alert dispatcher stopped")
    }

    /// Ends `run` after the pass in progress.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        waker.wake()
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    private func loop() async {
        while !isStopped {
            let attempted = await deliverDue()
            if isStopped { return }
            if attempted >= batchSize { continue }
            var wait = pollInterval
            if let next = try? await store.nextAlertAttempt() {
                let until = Duration.milliseconds(max(0, next.milliseconds - Timestamp.now().milliseconds))
                if until < wait { wait = max(until, .milliseconds(5)) }
            }
            _ = await waker.sleep(until: .now.advanced(by: wait))
        }
    }

    /// One pass: attempts every row due at `now` (up to the batch size). Returns the number of rows attempted.
    @discardableResult
    public func deliverDue(now: Timestamp = .now()) async -> Int {
        let rows: [AlertRecord]
        do {
            rows = try await store.dueAlerts(now: now, limit: batchSize)
        } catch {
            logger.error("cannot read the alert outbox; will retry", metadata: ["error": "\(error)"])
            return 0
        }
        if !rows.isEmpty {
            await withTaskGroup(of: Void.self) { group in
                var next = rows.makeIterator()
                for _ in 0..<concurrency {
                    guard let row = next.next() else { break }
                    group.addTask { await self.attempt(row) }
                }
                while await group.next() != nil {
                    if let row = next.next() { group.addTask { await self.attempt(row) } }
                }
            }
        }
        if let metrics, let pending = try? await store.pendingAlertCount() {
            metrics.alertsPending(pending)
        }
        return rows.count
    }

    private func attempt(_ row: AlertRecord) async {
        guard let id = row.id else { return }
        let (sink, retry) = settings.withLock { ($0.sinks[row.sink], $0.retry) }
        let metadata: Logger.Metadata = ["sink": "\(row.sink)", "target": "\(row.target)", "kind": "\(row.kind)",
                                         "idempotency_key": "\(row.idempotencyKey)", "attempt": "\(row.attempts + 1)"]
        do throws(AlertDeliveryError) {
            guard let sink else {
                throw AlertDeliveryError("sink \"\(row.sink)\" is not configured (removed from alerts.sinks?); kept pending")
            }
            switch sink.kind {
            case .webhook(let webhook):
                try await webhook.deliver(row, prober: prober, trustStore: try systemTrustStore())
            case .exec(let exec):
                try await exec.deliver(row)
            }
        } catch {
            let delay = sink == nil ? retry.max : retry.delay(afterAttempts: row.attempts + 1)
            let next = Timestamp.now().adding(delay)
            var details = metadata
            details["error"] = "\(error.message)"
            details["retry_in"] = "\(ConfigDuration.format(delay))"
            logger.error("alert delivery failed; will retry", metadata: details)
            do {
                try await store.scheduleAlertRetry(id: id, nextAttempt: next, error: error.message)
            } catch {
                logger.error("cannot record the failed alert delivery; the row stays due", metadata: ["error": "\(error)"])
            }
            return
        }
        do {
            try await store.markAlertDelivered(id: id, at: .now())
            logger.info("alert delivered", metadata: metadata)
            metrics?.alertSent(sink: row.sink, kind: row.kind)
        } catch {
            // The sink has it; it will get it again (same idempotency key) once the store works.
            logger.error("alert delivered but not marked; it will be sent again", metadata: ["error": "\(error)"].merging(metadata) { a, _ in a })
        }
    }

    /// The system trust roots, loaded on first use (a failure is retried with the delivery).
    private func systemTrustStore() throws(AlertDeliveryError) -> TrustStore {
        if let loaded = trustStore.withLock({ $0 }) { return loaded }
        do {
            let loaded = try TrustStore.system()
            trustStore.withLock { $0 = loaded }
            return loaded
        } catch {
            throw AlertDeliveryError("cannot load the system trust roots: \(error)")
        }
    }
}
