import ArgumentParser
import Foundation
import Logging
import NetVigilAgent
import NetVigilFleet

/// `netvigil fleet`: the central PostgreSQL of a fleet (docs/fleet.md).
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Set up the fleet's central PostgreSQL: schema, partitions, roles, agents.",
        subcommands: [FleetMigrateCommand.self, FleetAddAgentCommand.self])
}

/// Where the fleet database is and how to reach it, for the administrative commands.
struct FleetConnectionOptions: ParsableArguments {
    @Option(name: .long, help: "postgres://USER@HOST[:PORT]/DATABASE of a role that owns the database and may create roles; the password comes from PGPASSWORD.")
    var postgres: String

    @Option(name: .long, help: "TLS: verify-full (default for a remote host), require, or disable (default and only allowed for a loopback host).")
    var tls: String?

    @Option(name: .long, help: "PEM CA certificates for --tls verify-full (default: the system's).")
    var ca: String?

    /// The connector, or a usage failure naming what is wrong (never quoting the URL: it may hold a password).
    func connector() throws -> FleetConnector {
        var url: PostgresURL
        do {
            url = try PostgresURL(parsing: postgres)
        } catch {
            throw CLIFailure(.usage, "--postgres: \(error.message)")
        }
        guard url.user != nil else { throw CLIFailure(.usage, "--postgres: the URL names no user (postgres://USER@HOST/DATABASE)") }
        var mode = FleetTLSMode.defaultMode(for: url)
        if let tls {
            guard let chosen = FleetTLSMode(rawValue: tls) else {
                throw CLIFailure(.usage, "--tls: expected one of \(FleetTLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard chosen != .disable || url.isLoopback else {
                throw CLIFailure(.usage, "--tls disable is allowed only for a loopback host (\(url.host) is not)")
            }
            mode = chosen
        }
        if ca != nil, mode != .verifyFull { throw CLIFailure(.usage, "--ca is used only with --tls verify-full") }
        var password = url.password
        if password == nil, let environment = ProcessInfo.processInfo.environment["PGPASSWORD"], !environment.isEmpty {
            password = Secret(environment)
        }
        url.password = nil
        return FleetConnector(url: url, password: password, tlsMode: mode, caFile: ca)
    }

    /// The exit a fleet error calls for: 64 for bad input, 74 for everything about the database.
    static func failure(_ error: FleetError) -> CLIFailure {
        CLIFailure(error.kind == .usage ? .usage : .ioError, "fleet database: \(error)")
    }
}

/// `netvigil fleet migrate --postgres URL`.
struct FleetMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the fleet schema, make day partitions ahead and drop those past the retention.",
        discussion: """
            Idempotent and safe to run from two hosts at once (one transaction under an advisory lock). Creates the \
            group roles netvigil_agent and netvigil_reader. Run it daily (a timer) to keep partitions ahead and drop \
            expired ones. Exit codes: 0 done, 64 usage, 74 the database refused or could not be reached.
            """)

    @OptionGroup var connection: FleetConnectionOptions

    @Option(name: .long, help: "Keep history this many days, e.g. 400d (stored in the database; default: the stored value, else 400d).")
    var retention: String?

    func run() async throws {
        try await withCLIFailureHandling {
            var days: Int?
            if let retention {
                guard retention.hasSuffix("d"), let value = Int(retention.dropLast()), value >= 1, value <= 36_500 else {
                    throw CLIFailure(.usage, "--retention: expected a number of days such as 400d")
                }
                days = value
            }
            let connector = try connection.connector()
            let logger = Logger(label: "netvigil.fleet")
            do {
                let postgres = try await connector.connect(logger: logger)
                defer { Task { try? await postgres.close() } }
                let summary = try await FleetMigrator.migrate(connection: postgres, retentionDays: days, logger: logger)
                let applied = summary.applied.isEmpty ? "schema current (version \(FleetSchema.currentVersion))"
                    : "applied version\(summary.applied.count == 1 ? "" : "s") \(summary.applied.map(String.init).joined(separator: ", "))"
                print("\(applied); \(summary.createdPartitions) partitions created, \(summary.droppedPartitions.count) dropped; "
                      + "retention \(summary.retentionDays)d")
            } catch {
                throw FleetConnectionOptions.failure(FleetError.classify(error))
            }
        }
    }
}

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
            guard FleetSection.isValidAgentName(name) else {
                throw CLIFailure(.usage, "agent name: expected letters, digits, _, - and . starting with a letter (at most 63 bytes)")
            }
            let connector = try connection.connector()
            let logger = Logger(label: "netvigil.fleet")
            do {
                let postgres = try await connector.connect(logger: logger)
                defer { Task { try? await postgres.close() } }
                let outcome = try await FleetAgentProvisioner.addAgent(name: name, passwordFile: passwordFile,
                                                                       connection: postgres, logger: logger)
                print("agent \(name): role \(outcome.rawValue); password written to \(passwordFile) (mode 0600)")
            } catch {
                throw FleetConnectionOptions.failure(FleetError.classify(error))
            }
        }
    }
}
