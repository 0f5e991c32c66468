import Foundation
import Logging
import NetVigilConcurrency
import NetVigilProber
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
///
/// Alertmanager sinks also get the alerts that keep firing again every `resend_interval` (see
/// ``resendFiring(now:)``), so Alertmanager does not resolve them when their `endsAt` passes.
///
/// While the store cannot be written (disk full), alerts are still delivered: rows waiting in the writer's queue
/// are sent from there and their outcome is written into the queued row, so they are committed as delivered (or
/// with their retry schedule) once the store works again. A stored row whose outcome cannot be recorded is
/// remembered in memory until it can be, so it is neither resent every pass nor lost.
public final class AlertDispatcher: Service, Sendable {
    private struct Settings {
        var sinks: [String: AlertSink]
        var retry: AlertRetry
    }

    public let store: Store
    private let settings: Mutex<Settings>
    let logger: Logger
    private let metrics: AgentMetrics?
    let prober: Prober
    private let pollInterval: Duration
    private let batchSize: Int
    private let concurrency: Int
    private let waker = Waker()
    private let stopped = Atomic<Bool>(false)
    private let trustRoots = SystemTrustRoots()
    /// The writer whose queued alert rows are delivered while the store fails; nil without one (tests).
    private let writer: StoreWriter?
    /// Outcomes not recorded in the store yet, by idempotency key.
    private let unrecorded = Mutex(UnrecordedOutcomes())
    /// The alerts firing now (the engine's view); nil: no re-sends.
    let firing: (@Sendable () -> [FiringAlert])?
    /// When each Alertmanager sink's firing alerts are re-sent next, by sink name.
    let nextResend = Mutex<[String: Timestamp]>([:])

    private struct UnrecordedOutcomes {
        /// Delivered; the row is marked once the store can be written.
        var delivered: [String: Timestamp] = [:]
        /// Failed; not retried before this time.
        var retryAt: [String: Timestamp] = [:]
    }

    /// - Parameters:
    ///   - configuration: the `alerts:` section (sinks and retry).
    ///   - metrics: counts deliveries (`alertSent`) and the outbox size (`alertsPending`).
    ///   - pollInterval: how often due retries are looked for at the latest (at most 1 s is sensible).
    ///   - batchSize: rows taken per pass.
    ///   - concurrency: deliveries in flight at once.
    ///   - writer: delivers its queued alert rows while the store cannot be written.
    ///   - firing: the alerts firing now (`AlertEngine.firing`), re-sent to Alertmanager sinks; nil sends none again.
    public init(store: Store, configuration: AlertsSection, logger: Logger, metrics: AgentMetrics? = nil,
                prober: Prober = Prober(), pollInterval: Duration = .seconds(1), batchSize: Int = 64,
                concurrency: Int = 8, writer: StoreWriter? = nil, firing: (@Sendable () -> [FiringAlert])? = nil) {
        self.store = store
        self.writer = writer
        self.firing = firing
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
        await withStopHandler {
            await self.loop()
        } onStop: {
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
            await resendFiring()
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

    /// One pass: attempts every row due at `now` (up to the batch size), from the store and, while the store fails,
    /// from the writer's queue. Returns the number of rows attempted.
    @discardableResult
    public func deliverDue(now: Timestamp = .now()) async -> Int {
        var rows: [AlertRecord] = []
        do {
            rows = try await recordPendingOutcomes(in: try await store.dueAlerts(now: now, limit: batchSize))
        } catch {
            logger.error("cannot read the alert outbox; will retry", metadata: ["error": "\(error)"])
        }
        if let writer, writer.health.failure != nil {
            let seen = Set(rows.map(\.idempotencyKey))
            let queued = writer.queuedAlerts.filter {
                $0.state == .pending && $0.nextAttemptAt <= now && !seen.contains($0.idempotencyKey)
            }
            rows += queued.prefix(max(0, batchSize - rows.count))
        }
        rows = unrecorded.withLock { outcomes in
            rows.filter { row in
                outcomes.delivered[row.idempotencyKey] == nil && (outcomes.retryAt[row.idempotencyKey].map { $0 <= now } ?? true)
            }
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

    /// Marks stored rows that were delivered while the store could not record it; returns the others.
    private func recordPendingOutcomes(in rows: [AlertRecord]) async throws -> [AlertRecord] {
        var remaining: [AlertRecord] = []
        for row in rows {
            guard let deliveredAt = unrecorded.withLock({ $0.delivered[row.idempotencyKey] }), let id = row.id else {
                remaining.append(row)
                continue
            }
            if (try? await store.markAlertDelivered(id: id, at: deliveredAt)) != nil {
                _ = unrecorded.withLock { $0.delivered.removeValue(forKey: row.idempotencyKey) }
            }
        }
        return remaining
    }

    private func attempt(_ row: AlertRecord) async {
        let (sink, retry) = settings.withLock { ($0.sinks[row.sink], $0.retry) }
        var metadata: Logger.Metadata = ["sink": "\(row.sink)", "target": "\(row.target)", "kind": "\(row.kind)",
                                         "idempotency_key": "\(row.idempotencyKey)", "attempt": "\(row.attempts + 1)"]
        if row.id == nil { metadata["from"] = "memory (store not writable)" }
        do throws(AlertDeliveryError) {
            guard let sink else {
                throw AlertDeliveryError("sink \"\(row.sink)\" is not configured (removed from alerts.sinks?); kept pending")
            }
            switch sink.kind {
            case .webhook(let webhook):
                try await webhook.deliver(row, prober: prober, trustStore: try systemTrustStore())
            case .exec(let exec):
                try await exec.deliver(row)
            case .alertmanager(let alertmanager):
                try await alertmanager.deliver(row, prober: prober, systemTrustStore: systemTrustStore)
            }
        } catch {
            let delay = sink == nil ? retry.max : retry.delay(afterAttempts: row.attempts + 1)
            let next = Timestamp.now().adding(delay)
            var details = metadata
            details["error"] = "\(error.message)"
            details["retry_in"] = "\(ConfigDuration.format(delay))"
            logger.error("alert delivery failed; will retry", metadata: details)
            await recordRetry(row, next: next, error: error.message)
            return
        }
        logger.info("alert delivered", metadata: metadata)
        metrics?.alertSent(sink: row.sink, kind: row.kind)
        await recordDelivery(row, at: .now())
    }

    /// Records a delivery in the store, in the writer's queued row, or in memory until the store can take it.
    private func recordDelivery(_ row: AlertRecord, at time: Timestamp) async {
        _ = unrecorded.withLock { $0.retryAt.removeValue(forKey: row.idempotencyKey) }
        if let id = row.id {
            do {
                try await store.markAlertDelivered(id: id, at: time)
                return
            } catch {
                logger.error("alert delivered but not marked yet; marked once the store can be written",
                             metadata: ["idempotency_key": "\(row.idempotencyKey)", "error": "\(error)"])
            }
        } else if writer?.updateQueuedAlert(idempotencyKey: row.idempotencyKey, { queued in
            queued.state = .delivered
            queued.deliveredAt = time
            queued.attempts += 1
        }) == true {
            return
        }
        unrecorded.withLock { $0.delivered[row.idempotencyKey] = time }
    }

    /// Records a failed attempt's retry time like ``recordDelivery(_:at:)``.
    private func recordRetry(_ row: AlertRecord, next: Timestamp, error message: String) async {
        if let id = row.id {
            do {
                try await store.scheduleAlertRetry(id: id, nextAttempt: next, error: message)
                unrecorded.withLock { $0.retryAt[row.idempotencyKey] = nil }
                return
            } catch {
                logger.error("cannot record the failed alert delivery; retried from memory", metadata: ["error": "\(error)"])
            }
        } else if writer?.updateQueuedAlert(idempotencyKey: row.idempotencyKey, { queued in
            queued.attempts += 1
            queued.nextAttemptAt = next
            queued.lastError = message
        }) == true {
            return
        }
        unrecorded.withLock { $0.retryAt[row.idempotencyKey] = next }
    }

    /// The configured Alertmanager sinks, by name.
    var alertmanagerSinks: [(name: String, sink: AlertmanagerSink)] {
        settings.withLock { settings in
            settings.sinks.values.compactMap { sink in
                guard case .alertmanager(let alertmanager) = sink.kind else { return nil }
                return (sink.name, alertmanager)
            }
        }.sorted { $0.name < $1.name }
    }

    /// The system trust roots, loaded on first use (a failure is retried with the delivery).
    func systemTrustStore() throws(AlertDeliveryError) -> TrustStore {
        try trustRoots.trustStore()
    }
}
