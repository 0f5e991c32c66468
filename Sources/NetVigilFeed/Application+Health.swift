import Hummingbird
import HummingbirdCore
import Logging
import NetVigilAgent

/// The health listener (`feed.health_listen`): plain HTTP, `GET /healthz` only, the feed's health logic, and
/// connections of its own, so that a liveness probe is answered while the feed's connection cap is taken by clients.
public func buildHealthApplication(listen: ListenAddress, state: FeedState, logger: Logger,
                                   onServerRunning: @escaping @Sendable (String) async -> Void = { _ in })
    -> some ApplicationProtocol {
    let router = Router()
    FeedRoutes.addHealth(to: router, state: state)
    return Application(
        router: router,
        configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "netvigil"),
        onServerRunning: { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "\(listen)"
            await onServerRunning(address)
        },
        logger: logger
    )
}
