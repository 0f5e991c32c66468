import Foundation
import Hummingbird
import HummingbirdCore
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
    buildServer(router: buildRouter(configuration: configuration, state: state), configuration: configuration,
                logger: logger, onServerRunning: onServerRunning)
}

/// An HTTP server for `router` as `configuration` says (address, HTTPS, connection limit, idle timeout): the
/// agent's feed and the fleet hub's (`netvigil fleet serve`) listen alike.
public func buildServer(
    router: Router<BasicRequestContext>,
    configuration: FeedConfiguration,
    logger: Logger,
    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let http1 = HTTP1Channel.Configuration(idleTimeout: .nanoseconds(configuration.idleTimeout.inNanoseconds))
    let server: HTTPServerBuilder
    if let tls = configuration.tls {
        server = HTTPServerBuilder { responder in
            FeedTLSChannel(base: HTTP1Channel(responder: responder, configuration: http1), tls: tls)
        }
    } else {
        server = .http1(configuration: http1)
    }
    return Application(
        router: router,
        server: server,
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

/// The feed's routes: the token middleware, then every route group of ``FeedRoutes``.
func buildRouter(configuration: FeedConfiguration, state: FeedState) -> Router<BasicRequestContext> {
    let router = Router()
    if let token = configuration.token {
        // Public mode opens the redacted document and the badges too (the pages are always open).
        router.add(middleware: configuration.publicStatus
            ? BearerTokenMiddleware(token: token, openPaths: ["/healthz", "/", "/v1/public/status"],
                                    openPatterns: ["/targets/*", "/badge/*/*"])
            : BearerTokenMiddleware(token: token))
    }
    FeedRoutes.addHealth(to: router, state: state)
    FeedRoutes.addStatus(to: router, state: state)
    FeedRoutes.addMetrics(to: router, state: state)
    FeedRoutes.addHistory(to: router, state: state)
    FeedRoutes.addTarget(to: router, state: state)
    FeedRoutes.addSeries(to: router, state: state)
    FeedRoutes.addExport(to: router, state: state)
    FeedRoutes.addEvents(to: router, state: state)
    FeedRoutes.addStatusPage(to: router, state: state, publicStatus: configuration.publicStatus,
                             namesOpen: configuration.token == nil || configuration.publicStatus)
    if configuration.publicStatus {
        FeedRoutes.addPublicStatus(to: router, state: state)
    }
    FeedRoutes.addBadges(to: router, state: state)
    return router
}

/// A 200 JSON response with sorted keys (stable for diffs and tests).
public func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    return Response(status: status, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
