import Foundation
import Hummingbird
import Logging
import NetVigilAgent
import NetVigilConcurrency
import NetVigilStore

/// Builds the feed application; the daemon runs it and tests drive it with `app.test(.router)`.
public func buildApplication(
    configuration: FeedConfiguration,
    state: FeedState,
    logger: Logger,
    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = buildRouter(configuration: configuration, state: state)
    return Application(
        router: router,
        server: .http1(configuration: .init(idleTimeout: .nanoseconds(configuration.idleTimeout.inNanoseconds))),
        configuration: .init(address: .hostname(configuration.listen.host, port: configuration.listen.port),
                             serverName: "netvigil",
                             availableConnectionsDelegate: FeedConnectionLimit(maxConnections: configuration.maxConnections)),
        onServerRunning: { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "\(configuration.listen)"
            await onServerRunning(address)
        },
        logger: logger
    )
}

/// The feed's routes.
func buildRouter(configuration: FeedConfiguration, state: FeedState) -> Router<BasicRequestContext> {
    let router = Router()
    if let token = configuration.token {
        router.add(middleware: BearerTokenMiddleware(token: token))
    }
    router.get("/healthz") { _, _ -> Response in
        let report = await healthReport(state)
        return Response(status: report.isHealthy ? .ok : .serviceUnavailable,
                        headers: [.contentType: "text/plain; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: report.isHealthy ? "ok\n" : "unhealthy: \(report.summary)\n")))
    }
    router.get("/v1/status") { _, _ -> Response in
        let now = Timestamp.now()
        let report = StatusReport(
            version: state.version,
            startedAt: state.startedAt,
            uptimeSeconds: Double(now.milliseconds - state.startedAt.milliseconds) / 1_000,
            store: try await state.store.statistics(),
            reachability: await state.reachabilitySnapshot(),
            captivePortal: state.portal?.verdict,
            targets: state.targetSnapshots(now: now),
            health: state.health.map { StatusReport.Health($0.check()) })
        return try jsonResponse(report)
    }
    addMetricsRoute(to: router, state: state)
    FeedRoutes.addHistory(to: router, state: state)
    FeedRoutes.addTarget(to: router, state: state)
    FeedRoutes.addExport(to: router, state: state)
    FeedRoutes.addEvents(to: router, state: state)
    FeedRoutes.addStatusPage(to: router)
    return router
}

/// The daemon's liveness (when the feed runs in one), then whether the store takes a write lock within 2 s.
func healthReport(_ state: FeedState) async -> DaemonHealth.Report {
    if let report = state.health?.check(), !report.isHealthy { return report }
    let store = state.store
    let writable = await withTaskGroup(of: Bool?.self) { group in
        group.addTask { await store.isWritable() }
        group.addTask {
            try? await Task.sleep(for: .seconds(2))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    switch writable {
    case true?: return DaemonHealth.Report(problems: [])
    case false?: return DaemonHealth.Report(problems: ["store not writable"])
    case nil: return DaemonHealth.Report(problems: ["store not writable: no write lock within 2 s"])
    }
}

/// A 200 JSON response with sorted keys (stable for diffs and tests).
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    return Response(status: status, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
