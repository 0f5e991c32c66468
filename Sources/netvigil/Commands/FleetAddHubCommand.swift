import ArgumentParser
import Logging
import NetVigilAgent
import NetVigilFleet

/// `netvigil fleet add-hub NAME --postgres URL --password-file FILE`.
struct FleetAddHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-hub",
        abstract: "Create the login role of a hub (a member of netvigil_hub) with a generated password.",
        discussion: """
            A hub (netvigil fleet serve) reads every agent's results and keeps the fleet's alerts. The password is \
            written to --password-file (mode 0600) and nowhere else; the server receives only its SCRAM-SHA-256 \
            verifier. For an existing role it sets a new password. Exit codes: 0 done, 64 usage, 74 the database \
            refused or could not be reached.
            """)

    @Argument(help: "The hub's name: the user of its fleet.postgres URL.")
    var name: String

    @OptionGroup var connection: FleetConnectionOptions

    @Option(name: .long, help: "Where to write the generated password (created or replaced, mode 0600).")
    var passwordFile: String

    func run() async throws {
        try await withCLIFailureHandling {
            guard FleetSection.isValidAgentName(name) else {
                throw CLIFailure(.usage, "hub name: expected letters, digits, _, - and . starting with a letter (at most 63 bytes)")
            }
            let connector = try connection.connector()
            let logger = Logger(label: "netvigil.fleet")
            do {
                let postgres = try await connector.connect(logger: logger)
                defer { Task { try? await postgres.close() } }
                let outcome = try await FleetAgentProvisioner.addAgent(name: name, passwordFile: passwordFile, group: .hub,
                                                                       connection: postgres, logger: logger)
                print("hub \(name): role \(outcome.rawValue); password written to \(passwordFile) (mode 0600)")
            } catch {
                throw FleetConnectionOptions.failure(FleetError.classify(error))
            }
        }
    }
}
