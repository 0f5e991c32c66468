import ArgumentParser
import Foundation
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilReachability
import NetVigilStore
import ServiceLifecycle

/// `netvigil run`: the daemon. Store writer, retention, reachability recorder and feed are services of one `ServiceGroup`.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the monitoring daemon (stops cleanly on SIGTERM or SIGINT).")

    @Option(name: .long, help: "YAML configuration file (default: the built-in configuration).")
    var config: String?

    func run() async throws {
        try await withCLIFailureHandling {
            let configuration = try loadConfiguration(config)
            LogBootstrap.bootstrap(level: configuration.log.level)
            let logger = Logger(label: "netvigil")

            let store: Store
            do {
                store = try Store.open(path: configuration.storage.path)
            } catch let error as StoreError {
                throw CLIFailure(error.kind == .io ? .ioError : .dataError, "storage: \(error)")
            }
            let writer = StoreWriter(store: store, logger: Logger(label: "netvigil.store"))
            let retention = RetentionService(store: store, retention: configuration.storage.retention,
                                             logger: Logger(label: "netvigil.retention"))
            let monitor = ReachabilityMonitor(
                targets: configuration.reachability.targets,
                options: .init(hostResolveInterval: configuration.reachability.resolveInterval),
                logger: Logger(label: "netvigil.reachability"))
            let reachability = ReachabilityRecorder(monitor: monitor, writer: writer, logger: Logger(label: "netvigil.reachability"))
            let feedLogger = Logger(label: "netvigil.feed")
            let feed = buildApplication(
                configuration: FeedConfiguration(configuration.feed),
                state: FeedState(store: store, reachability: monitor),
                logger: feedLogger,
                onServerRunning: { address in
                    feedLogger.info("feed listening", metadata: ["address": "\(address)"])
                })
            var groupConfiguration = ServiceGroupConfiguration(
                services: [
                    // The writer is first so it stops last: everything producers submit is flushed.
                    .init(service: writer),
                    .init(service: retention),
                    .init(service: reachability),
                    .init(service: feed),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger)
            groupConfiguration.maximumGracefulShutdownDuration = .seconds(4)
            let group = ServiceGroup(configuration: groupConfiguration)
            logger.info("netvigil starting", metadata: [
                "version": "\(NetVigilVersion.current)", "store": "\(store.path)", "feed": "\(configuration.feed.listen)",
            ])
            do {
                try await group.run()
            } catch {
                throw CLIFailure(.software, "daemon stopped: \(error)")
            }
            logger.info("netvigil stopped")
        }
    }
}
