import ArgumentParser
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
            try await connection.addRole(name, group: .hub, passwordFile: passwordFile)
        }
    }
}
