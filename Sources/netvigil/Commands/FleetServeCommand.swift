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
            once: they take turns to evaluate, and each alert notice is delivered once. Stops on SIGTERM or SIGINT. \
            Exit codes: 0 clean stop; 78 bad configuration; 70 the feed address cannot be bound or a service failed.
            """)

    @Option(name: .long, help: "The hub's YAML configuration (fleet:, feed:, alerts:, log:).")
    var config: String

    func run() async throws {
        try await withCLIFailureHandling {
            LogBootstrap.bootstrap(level: .info)
            let configuration: HubConfiguration
            do {
                configuration = try HubConfiguration.load(path: config)
            } catch let error as ConfigError {
                var more = error.others.map(\.oneLine)
                if error.omitted > 0 { more.append("(\(error.omitted) more configuration errors not shown)") }
                throw CLIFailure(.config, error.oneLine, more: more)
            }
            LogBootstrap.level = configuration.log.level
            let hub: FleetHub
            do {
                hub = try await FleetHub(configuration: configuration, logger: Logger(label: "netvigil.hub"))
            } catch let error as DaemonError {
                throw CLIFailure(.software, "\(error)")
            } catch {
                throw CLIFailure(.config, "fleet: \(error)")
            }
            do {
                try await hub.run()
            } catch {
                throw CLIFailure(.software, "hub stopped: \(error)")
            }
        }
    }
}
