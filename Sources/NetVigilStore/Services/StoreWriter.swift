import Logging
import ServiceLifecycle
import Synchronization

/// The store's single writer: producers hand it batches, it commits them in coalesced transactions.
///
/// Producers call `submit` (fire and forget) or `write` (waits for the commit). On graceful shutdown it
/// keeps running until every batch submitted so far is written, so nothing accepted is lost. Put it first
/// in the `ServiceGroup` so it is the last service to stop.
public final class StoreWriter: Service, Sendable {
    private struct Pending {
        var items: [(batch: WriteBatch, done: CheckedContinuation<Void, Error>?)] = []
        var wakeup: CheckedContinuation<Void, Never>?
        var closed = false
    }

    public let store: Store
    private let logger: Logger
    private let maxRowsPerTransaction: Int
    private let state = Mutex(Pending())

    public init(store: Store, logger: Logger, maxRowsPerTransaction: Int = 5_000) {
        self.store = store
        self.logger = logger
        self.maxRowsPerTransaction = maxRowsPerTransaction
    }

    /// Queues a batch without waiting. Returns false once the writer has shut down.
    @discardableResult
    public func submit(_ batch: WriteBatch) -> Bool {
        enqueue(batch, done: nil)
    }

    /// Queues a batch and waits until it is committed.
    public func write(_ batch: WriteBatch) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            if !enqueue(batch, done: continuation) {
                continuation.resume(throwing: StoreError(.io, path: store.path, message: "store writer has shut down"))
            }
        }
    }

    private func enqueue(_ batch: WriteBatch, done: CheckedContinuation<Void, Error>?) -> Bool {
        let wakeup: CheckedContinuation<Void, Never>?? = state.withLock { state in
            guard !state.closed else { return .none }
            state.items.append((batch, done))
            defer { state.wakeup = nil }
            return .some(state.wakeup)
        }
        guard case .some(let continuation) = wakeup else { return false }
        continuation?.resume()
        return true
    }

    public func run() async throws {
        // Graceful shutdown and cancellation (another service failed) both close the writer; the loop
        // still drains what was queued before it returns.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await self.loop()
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
        }
        logger.debug("store writer stopped")
    }

    /// Stops accepting batches; `run` returns once everything queued is written.
    public func close() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            defer { state.wakeup = nil }
            return state.wakeup
        }
        continuation?.resume()
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
                try await store.write(batch)
                failures = 0
                for item in items { item.done?.resume() }
            } catch {
                failures += 1
                logger.error("store write failed, will retry", metadata: ["rows": "\(batch.count)", "error": "\(error)", "attempt": "\(failures)"])
                if closed && failures >= 3 {
                    logger.critical("giving up on store writes at shutdown", metadata: ["rows": "\(batch.count)"])
                    for item in items { item.done?.resume(throwing: error) }
                    continue
                }
                // Put the rows back in front and back off; nothing accepted is dropped.
                state.withLock { $0.items.insert(contentsOf: items, at: 0) }
                try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(failures, 6))))
            }
        }
    }

    /// Waits until something is queued (or the writer is closed) and takes up to one transaction's worth.
    private func nextItems() async -> ([(batch: WriteBatch, done: CheckedContinuation<Void, Error>?)], Bool) {
        while true {
            let taken = state.withLock { state -> ([(batch: WriteBatch, done: CheckedContinuation<Void, Error>?)], Bool)? in
                guard !state.items.isEmpty || state.closed else { return nil }
                var rows = 0
                var count = 0
                for item in state.items {
                    if count > 0 && rows + item.batch.count > maxRowsPerTransaction { break }
                    rows += item.batch.count
                    count += 1
                }
                let items = Array(state.items.prefix(count))
                state.items.removeFirst(count)
                return (items, state.closed)
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if !state.items.isEmpty || state.closed { return true }
                    state.wakeup = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}
