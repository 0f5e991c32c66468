import ArgumentParser
import Foundation
import Logging
import NetVigilAgent
import NetVigilFleet

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

    /// `add-agent` and `add-hub`: a login role `name` in `group` with a generated password written to
    /// `passwordFile`; prints one line.
    func addRole(_ name: String, group: FleetAgentProvisioner.Group, passwordFile: String) async throws {
        let word = group == .hub ? "hub" : "agent"
        guard FleetSection.isValidAgentName(name) else {
            throw CLIFailure(.usage, "\(word) name: expected letters, digits, _, - and . starting with a letter (at most 63 bytes)")
        }
        let connector = try connector()
        let logger = Logger(label: "netvigil.fleet")
        do {
            let postgres = try await connector.connect(logger: logger)
            defer { Task { try? await postgres.close() } }
            let outcome = try await FleetAgentProvisioner.addAgent(name: name, passwordFile: passwordFile, group: group,
                                                                   connection: postgres, logger: logger)
            print("\(word) \(name): role \(outcome.rawValue); password written to \(passwordFile) (mode 0600)")
        } catch {
            throw Self.failure(FleetError.classify(error))
        }
    }

    /// The exit a fleet error calls for: 64 for bad input, 74 for everything about the database.
    static func failure(_ error: FleetError) -> CLIFailure {
        CLIFailure(error.kind == .usage ? .usage : .ioError, "fleet database: \(error)")
    }
}
