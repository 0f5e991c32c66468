import ServiceLifecycle

extension ReachabilityMonitor: Service {
    /// Service entry point: starts watching, waits for graceful shutdown (or cancellation), stops.
    public func run() async throws {
        try await start()
        try? await gracefulShutdown()
        stop()
    }
}
