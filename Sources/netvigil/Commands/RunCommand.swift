import ArgumentParser
import Foundation
import Logging
import NetVigilAgent
import NetVigilDaemon
import NetVigilStore

/// `netvigil run`: parses its options, loads the configuration and runs the `Daemon` (NetVigilDaemon) under the
/// shutdown deadline; SIGHUP reloads the configuration.
struct RunCommand: AsyncParsableCommand {
    /// SIGTERM/SIGINT end the process within this, gracefully when possible (the group gets 4 s of it).
    static let shutdownDeadline: Duration = .milliseconds(4_800)

    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the monitoring daemon (stops on SIGTERM or SIGINT within 5 s, reloads on SIGHUP).",
        discussion: """
            GET /healthz on the feed answers 200 while the daemon is live and 503 with the reasons when a due probe \
            has not started within max(2 x the shortest interval, 30 s), a probe runs that long past its timeout, or \
            the store cannot be written (disk full: results wait in memory, up to storage.max_queued_rows rows, and \
            alerts are still delivered); under systemd the watchdog ping (WatchdogSec=) stops while unhealthy. \
            SIGTERM/SIGINT stop the services gracefully; after 4.8 s the process exits anyway with 70, logging what \
            it could not write, and a second signal exits at once. \
            Exit codes: 0 clean stop; 78 bad configuration; 74 storage not writable or not a regular file; 65 corrupt \
            or foreign database; 70 the feed address cannot be bound (e.g. the port is in use), a service failed or the \
            stop was forced; 130/143 SIGINT/SIGTERM during start-up.
            """)

    @Option(name: .long, help: "YAML configuration file (default: the built-in configuration).")
    var config: String?

    func run() async throws {
        try await withCLIFailureHandling {
            // The console handler first, so that every line (the deadline's last one too) has one format.
            LogBootstrap.bootstrap(level: .info)
            let deadline = ShutdownDeadline(deadline: Self.shutdownDeadline, logger: Logger(label: "netvigil"))
            let configuration = try loadConfiguration(config)
            LogBootstrap.level = configuration.log.level
            let logger = Logger(label: "netvigil")
            let daemon: Daemon
            do {
                daemon = try await Daemon(
                    configuration: configuration, path: config, descriptorLimit: DescriptorLimit.raiseToHardLimit(logger: logger),
                    logger: logger, logLevelChanged: { LogBootstrap.level = $0 },
                    // Last, so it hears of shutdown first.
                    extraServices: [ShutdownDeadline.Watch(deadline: deadline)])
            } catch let error as DaemonError {
                switch error {
                case .feedUnavailable(let reason): throw CLIFailure(.software, reason)
                case .store(let store): throw CLIFailure(store.kind == .io ? .ioError : .dataError, "\(error)")
                }
            }
            deadline.running { daemon.unflushedSummary }
            do {
                try await daemon.run()
            } catch {
                throw CLIFailure(.software, "daemon stopped: \(error)")
            }
        }
    }
}
