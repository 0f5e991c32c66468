import ArgumentParser
import Logging
import NetVigilAgent
import NetVigilDaemon

/// `netvigil fleet serve --config hub.yml`: the fleet view and the fleet's alerts (docs/fleet.md).
struct FleetServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a hub: the fleet view (page, /v1/fleet/status, /metrics) and the alerts only a fleet can give.",
        discussion: """
            Reads the fleet database as a member of netvigil_hub (netvigil fleet add-hub). Several hubs may run at \
            once: they take turns to evaluate, and each alert notice is delivered once. Stops on SIGTERM or SIGINT \
            within 5 s (gracefully when it can; after 4.8 s it exits with 70). Exit codes: 0 clean stop; 78 bad \
            configuration; 70 the feed address cannot be bound, a service failed or the stop was forced; 130/143 \
            SIGINT/SIGTERM during start-up.
            """)

    @Option(name: .long, help: "The hub's YAML configuration (fleet:, feed:, alerts:, log:).")
    var config: String

    func run() async throws {
        try await withCLIFailureHandling {
            LogBootstrap.bootstrap(level: .info)
            // As `netvigil run`: SIGTERM and SIGINT end the hub within the deadline whatever it is doing (a stop during
            // a status read whose client left could wait for the database pool without end).
            let deadline = ShutdownDeadline(deadline: RunCommand.shutdownDeadline, logger: Logger(label: "netvigil.hub"))
            let configuration = try reportingConfigErrors { try HubConfiguration.load(path: config) }
            LogBootstrap.level = configuration.log.level
            let hub: FleetHub
            do {
                hub = try await FleetHub(configuration: configuration, logger: Logger(label: "netvigil.hub"),
                                         extraServices: [ShutdownDeadline.Watch(deadline: deadline)])
            } catch let error as DaemonError {
                throw CLIFailure(.software, "\(error)")
            } catch {
                throw CLIFailure(.config, "fleet: \(error)")
            }
            deadline.running { "" }
            do {
                try await hub.run()
            } catch {
                throw CLIFailure(.software, "hub stopped: \(error)")
            }
        }
    }
}
