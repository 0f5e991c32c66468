import ArgumentParser
import NetVigilFleet

/// `netvigil fleet add-agent NAME --postgres URL --password-file FILE`.
struct FleetAddAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-agent",
        abstract: "Create the login role of one agent (a member of netvigil_agent) with a generated password.",
        discussion: """
            The password is written to --password-file (mode 0600) and nowhere else; the server receives only its \
            SCRAM-SHA-256 verifier. For an existing agent it sets a new password (rotation). Exit codes: 0 done, \
            64 usage, 74 the database refused or could not be reached.
            """)

    @Argument(help: "The agent's name: its fleet.agent and its login role.")
    var name: String

    @OptionGroup var connection: FleetConnectionOptions

    @Option(name: .long, help: "Where to write the generated password (created or replaced, mode 0600).")
    var passwordFile: String

    func run() async throws {
        try await withCLIFailureHandling {
            try await connection.addRole(name, group: .agent, passwordFile: passwordFile)
        }
    }
}
