import NIOCore

extension EventLoopFuture where Value: Sendable {
    /// The future's value, or `CancellationError` as soon as the awaiting task is cancelled (a daemon that stops does
    /// not wait out a probe's timeout). `abandon` runs on cancellation: it fails the exchange's own promise, which
    /// closes its channel; whatever completes the promise later is ignored.
    func valueUnlessCancelled(abandon: @escaping @Sendable () -> Void) async throws -> Value {
        let outcome = eventLoop.makePromise(of: Value.self)
        cascade(to: outcome)
        return try await withTaskCancellationHandler {
            try await outcome.futureResult.get()
        } onCancel: {
            abandon()
            outcome.fail(CancellationError())
        }
    }
}
