import Foundation
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilFleet
import NetVigilFleetFeed
import PostgresNIO
import ServiceLifecycle

/// The hub (`netvigil fleet serve`, issue #54): a hub configuration in, one `ServiceGroup` out: the fleet database's
/// connection pool, the evaluator, the alert sender and the hub's feed. Several hubs may run against one database.
public final class FleetHub: Sendable {
    public let group: ServiceGroup
    public let state: FleetHubState
    public let evaluator: FleetHubEvaluator
    public let sender: FleetNoticeSender
    private let logger: Logger

    /// Builds the hub's services; nothing runs until `run()`.
    /// - Parameter hubName: this hub's name in alert payloads and Alertmanager's `instance` (default: the host name).
    /// - Throws: `DaemonError.feedUnavailable` when the feed's address cannot be bound, `FleetError` for a connection
    ///   setting the driver refuses (a CA file it cannot load).
    public init(configuration: HubConfiguration, hubName: String = AlertmanagerAlert.hostName,
                logger: Logger = Logger(label: "netvigil.hub"), extraServices: [any Service] = []) async throws {
        self.logger = logger
        do {
            try await FeedListenCheck.check(configuration.feed.listen)
        } catch {
            throw DaemonError.feedUnavailable("\(error)")
        }
        let connector = FleetConnector(section: configuration.fleet)
        let client = PostgresClient(configuration: try connector.clientConfiguration(maximumConnections: 4),
                                    backgroundLogger: FleetConnector.driverLogger(logger))
        let state = FleetHubState(consensus: FleetConsensus(settings: configuration.fleet.consensus),
                                  evaluateEvery: configuration.fleet.evaluateEvery, client: client, logger: logger)
        let alerts = configuration.alerts
        let sender = FleetNoticeSender(client: client, state: state, configuration: { alerts },
                                       logger: Logger(label: "netvigil.hub.alerts"))
        let evaluator = FleetHubEvaluator(client: client, state: state, sinks: { alerts }, sender: sender, hub: hubName,
                                          logger: logger)
        let feedConfiguration = FeedConfiguration(configuration.feed)
        let feed = buildHubApplication(configuration: feedConfiguration, state: state, logger: Logger(label: "netvigil.hub.feed")) { address in
            logger.info("fleet view listening", metadata: [
                "url": "\(feedConfiguration.tls == nil ? "http" : "https")://\(Daemon.urlHost(address))/"])
        }
        // The pool first, so that it stops last.
        let services: [any Service] = [client, evaluator, sender, feed] + extraServices
        group = ServiceGroup.stoppingGracefully(services, logger: logger)
        self.state = state
        self.evaluator = evaluator
        self.sender = sender
        logger.info("netvigil fleet hub starting", metadata: [
            "version": "\(NetVigilVersion.current)", "postgres": "\(configuration.fleet.url)", "feed": "\(configuration.feed.listen)",
            "sinks": "\(configuration.alerts.sinks.count)"])
    }

    /// Runs until a signal (SIGTERM, SIGINT), `shutdown()` or a failing service stops it.
    public func run() async throws {
        try await group.run()
        logger.info("netvigil fleet hub stopped")
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
