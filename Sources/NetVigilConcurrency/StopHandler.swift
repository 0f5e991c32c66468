import ServiceLifecycle

/// Runs a service's `operation` and calls `onStop` when the service must stop: when graceful shutdown begins or
/// when its task is cancelled (another service failed).
///
/// For services that drain before they return (the store writer, the scheduler, the alert dispatcher): `onStop`
/// tells them to stop taking work, `operation` returns when the work in hand is done. It may be called twice (a
/// shutdown followed by a cancellation), so it must be idempotent. Services that can simply stop at any await use
/// service-lifecycle's `cancelWhenGracefulShutdown` instead.
public func withStopHandler<T: Sendable>(_ operation: () async throws -> T,
                                         onStop: @escaping @Sendable () -> Void) async rethrows -> T {
    try await withTaskCancellationHandler {
        try await withGracefulShutdownHandler {
            try await operation()
        } onGracefulShutdown: {
            onStop()
        }
    } onCancel: {
        onStop()
    }
}
