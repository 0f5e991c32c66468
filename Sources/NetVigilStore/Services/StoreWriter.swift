import Logging
import NetVigilConcurrency
import ServiceLifecycle
import Synchronization

/// The store's single writer: producers hand it batches, it commits them in coalesced transactions.
///
/// Transactions start at most once per `commitInterval` (100 ms): a batch that comes while the store was quiet is
/// committed at once, batches that follow within the interval wait for its end and share one transaction. At 10,000
/// targets a minute that is 10 transactions a second instead of one per probe result (a transaction's fixed cost,
/// begin, commit, the WAL frame's write and the locks, paid per result was a large share of the daemon's CPU). A full
/// transaction's worth of rows, or closing the writer, ends the wait early.
///
/// Producers call `submit` (fire and forget, optionally told when the batch is committed) or `write` (waits for the
/// commit). A failed transaction (disk full, read-only file system) is retried with backoff of at most
/// `maxRetryDelay`, forever; meanwhile producers are never blocked: batches wait in a bounded in-memory queue
/// (``WriteQueue``: beyond `maxQueuedRows` the oldest probe and reachability rows are dropped and counted, alert
/// rows never). ``health`` tells whether writes succeed and how long a transaction has been running.
///
/// On graceful shutdown it keeps running until every batch submitted so far is written (or three attempts failed),
/// so nothing accepted is lost. Put it first in the `ServiceGroup` so it is the last service to stop.
public final class StoreWriter: Service, Sendable {
    /// What the writer can say about itself.
    public struct Health: Sendable, Equatable {
        /// Rows accepted and not yet committed.
        public var queuedRows: Int
        /// Rows dropped from the full queue since start.
        public var droppedRows: Int
        /// The error of the last transaction when it failed and none succeeded since.
        public var failure: String?
        /// When writes started failing (nil while they succeed).
        public var failingSince: ContinuousClock.Instant?
        /// When the transaction in progress started (nil when none runs).
        public var transactionStarted: ContinuousClock.Instant?
        /// Rows given up at shutdown after three failed attempts (never written).
        public var abandonedRows: Int
    }

    private struct State {
        var queue: WriteQueue
        var closed = false
        var failure: String?
        var failingSince: ContinuousClock.Instant?
        var transactionStarted: ContinuousClock.Instant?
        var abandonedRows = 0
        /// When the last transaction began (pacing: the next begins `commitInterval` after it at the earliest).
        var lastTransactionStart: ContinuousClock.Instant?
        /// Set while the loop waits for the end of the interval: enqueues then wake it only for a full transaction.
        var gathering = false
    }

    /// What the loop does next (``nextStep()``).
    private enum Step {
        case take([WriteQueue.Item], closed: Bool)
        case gather(until: ContinuousClock.Instant)
        case wait
    }

    public let store: Store
    private let logger: Logger
    private let maxRowsPerTransaction: Int
    private let maxRetryDelay: Duration
    private let commitInterval: Duration
    private let state: Mutex<State>
    /// Wakes the loop when a batch is queued or the writer is closed.
    private let waker = Waker()
    private let onDrop: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - maxQueuedRows: rows kept in memory while the store cannot be written.
    ///   - maxRetryDelay: the longest wait between attempts of a failing transaction.
    ///   - commitInterval: the shortest time between the starts of two transactions; batches arriving within it are
    ///     gathered into the next one.
    ///   - onDrop: told how many rows were dropped from the full queue (for a metric).
    public init(store: Store, logger: Logger, maxRowsPerTransaction: Int = 5_000, maxQueuedRows: Int = 10_000,
                maxRetryDelay: Duration = .seconds(2), commitInterval: Duration = .milliseconds(100), onDrop: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.store = store
        self.logger = logger
        self.maxRowsPerTransaction = maxRowsPerTransaction
        self.maxRetryDelay = maxRetryDelay
        self.commitInterval = commitInterval
        self.onDrop = onDrop
        state = Mutex(State(queue: WriteQueue(maxRows: maxQueuedRows)))
    }

    /// Queues a batch without waiting; `onCommit` runs once it is committed. Returns false once the writer has
    /// shut down.
    @discardableResult
    public func submit(_ batch: WriteBatch, onCommit: (@Sendable () -> Void)? = nil) -> Bool {
        enqueue(.init(batch: batch, done: nil, onCommit: onCommit))
    }

    /// Queues a batch and waits until it is committed.
    public func write(_ batch: WriteBatch) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            if !enqueue(.init(batch: batch, done: continuation, onCommit: nil)) {
                continuation.resume(throwing: StoreError(.io, path: store.path, message: "store writer has shut down"))
            }
        }
    }

    /// Whether writes succeed, what waits, what was dropped.
    public var health: Health {
        state.withLock { state in
            Health(queuedRows: state.queue.rows, droppedRows: state.queue.droppedRows, failure: state.failure,
                   failingSince: state.failingSince, transactionStarted: state.transactionStarted,
                   abandonedRows: state.abandonedRows)
        }
    }

    /// Alert rows accepted but not committed yet (the store is failing, or the commit is in progress).
    public var queuedAlerts: [AlertRecord] {
        state.withLock { $0.queue.alerts }
    }

    /// Changes a queued alert row before it is committed (the dispatcher delivered it from memory); false when the
    /// row is no longer queued.
    @discardableResult
    public func updateQueuedAlert(idempotencyKey: String, _ change: (inout AlertRecord) -> Void) -> Bool {
        state.withLock { $0.queue.updateAlert(idempotencyKey: idempotencyKey, change) }
    }

    private func enqueue(_ item: WriteQueue.Item) -> Bool {
        let accepted = state.withLock { state -> (dropped: Int, wake: Bool)? in
            guard !state.closed else { return nil }
            let dropped = state.queue.append(item)
            // A gathering loop wakes at the interval's end anyway; before it, only a full transaction needs it.
            return (dropped, !state.gathering || state.queue.rows >= maxRowsPerTransaction)
        }
        guard let accepted else { return false }
        if accepted.wake { waker.wake() }
        reportDropped(accepted.dropped)
        return true
    }

    public func run() async throws {
        // Graceful shutdown and cancellation (another service failed) both close the writer; the loop
        // still drains what was queued before it returns.
        do {
            try await store.startRowTally()
        } catch {
            logger.warning("cannot count the stored rows; status requests will count them each time",
                           metadata: ["error": "\(error)"])
        }
        await withStopHandler {
            await self.loop()
        } onStop: {
            self.close()
        }
        logger.debug("store writer stopped")
    }

    /// Stops accepting batches; `run` returns once everything queued is written.
    public func close() {
        state.withLock { $0.closed = true }
        waker.wake()
    }

    private func loop() async {
        var failures = 0
        while true {
            let (items, closed) = await nextItems()
            if items.isEmpty {
                if closed { return }
                continue
            }
            var batch = WriteBatch()
            for item in items { batch.append(item.batch) }
            do {
                try await commit(batch)
                if failures > 0 {
                    logger.notice("store writes succeed again", metadata: ["rows": "\(batch.count)", "failed_attempts": "\(failures)"])
                }
                failures = 0
                state.withLock { state in
                    state.failure = nil
                    state.failingSince = nil
                    state.transactionStarted = nil
                }
                for item in items {
                    item.done?.resume()
                    item.onCommit?()
                }
            } catch {
                failures += 1
                let message = "\(error)"
                logger.error("store write failed, will retry", metadata: ["rows": "\(batch.count)", "error": "\(message)", "attempt": "\(failures)"])
                if closed && failures >= 3 {
                    logger.critical("giving up on store writes at shutdown", metadata: ["rows": "\(batch.count)"])
                    state.withLock { state in
                        state.transactionStarted = nil
                        state.abandonedRows += batch.count
                    }
                    for item in items { item.done?.resume(throwing: error) }
                    continue
                }
                // Put the rows back in front and back off; rows beyond the queue's bound are dropped and counted.
                let dropped = state.withLock { state -> Int in
                    state.failure = message
                    if state.failingSince == nil { state.failingSince = .now }
                    state.transactionStarted = nil
                    return state.queue.putBack(items)
                }
                reportDropped(dropped)
                let backoff = Duration.milliseconds(100 << min(failures, 6))
                try? await Task.sleep(for: min(backoff, maxRetryDelay))
            }
        }
    }

    /// Writes from a task of its own: GRDB neither starts nor finishes a transaction in a cancelled task
    /// (CancellationError), and a cancelled writer still drains. The daemon's shutdown deadline bounds how long.
    private func commit(_ batch: WriteBatch) async throws {
        try await Task { try await self.store.write(batch) }.value
    }

    private func reportDropped(_ count: Int) {
        guard count > 0 else { return }
        logger.warning("store queue full: oldest rows dropped", metadata: ["rows": "\(count)"])
        onDrop(count)
    }

    /// Waits until something is queued (or the writer is closed) and the interval since the last transaction's
    /// start has passed, then takes up to one transaction's worth.
    private func nextItems() async -> ([WriteQueue.Item], Bool) {
        while true {
            switch nextStep(now: .now) {
            case .take(let items, let closed):
                return (items, closed)
            case .gather(let deadline):
                // A wake before the deadline (a full transaction, closing) ends the gathering; the next step decides.
                _ = await waker.sleep(until: deadline)
            case .wait:
                // Cancellation closes the writer (see `run`): the next pass takes what is left.
                await waker.wait()
            }
        }
    }

    /// Decides under the lock whether to take a transaction's worth now, gather until the interval ends, or wait.
    private func nextStep(now: ContinuousClock.Instant) -> Step {
        state.withLock { state in
            guard !state.queue.isEmpty || state.closed else {
                state.gathering = false
                return .wait
            }
            if !state.closed, state.queue.rows < maxRowsPerTransaction, let last = state.lastTransactionStart,
               now < last + commitInterval {
                state.gathering = true
                return .gather(until: last + commitInterval)
            }
            state.gathering = false
            let items = state.queue.take(maxRows: maxRowsPerTransaction)
            if !items.isEmpty {
                state.transactionStarted = now
                state.lastTransactionStart = now
            }
            return .take(items, closed: state.closed)
        }
    }
}
