import Foundation
import Hummingbird
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilFleet

/// Builds the hub's feed (`netvigil fleet serve`): the fleet's status, endpoints, metrics and pages, served as the
/// agent's feed is (same listener settings, token and page frame). Tests drive it with `app.test(.router)`.
public func buildHubApplication(
    configuration: FeedConfiguration,
    state: FleetHubState,
    logger: Logger,
    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) -> some ApplicationProtocol {
    buildServer(router: buildHubRouter(configuration: configuration, state: state), configuration: configuration,
                logger: logger, onServerRunning: onServerRunning)
}

/// The hub's routes: the token middleware (pages and `/healthz` stay open: they hold no data), then ``HubRoutes``.
public func buildHubRouter(configuration: FeedConfiguration, state: FleetHubState) -> Router<BasicRequestContext> {
    let router = Router()
    if let token = configuration.token {
        router.add(middleware: BearerTokenMiddleware(token: token, openPaths: ["/healthz", "/", "/endpoint", "/agents"],
                                                     openPatterns: []))
    }
    HubRoutes.add(to: router, state: state)
    return router
}
