import Foundation
import Glibc
import Logging
import NetVigilAgent
import PostgresNIO

/// `netvigil fleet add-agent NAME` (and `add-hub`): one login role per agent, a member of `netvigil_agent` (a hub's:
/// of `netvigil_hub`), with a generated
/// password written to a mode-0600 file and nowhere else (not to the output, a log, or the server: the role gets the
/// password's SCRAM verifier). Run again for an existing agent, it sets a new password (rotation).
public enum FleetAgentProvisioner {
    /// What happened to the role.
    public enum Outcome: String, Sendable {
        case created
        case passwordReplaced = "password replaced"
    }

    /// The group role a login role joins: what it may do.
    public enum Group: String, Sendable {
        /// Ships its own history (`add-agent`).
        case agent = "netvigil_agent"
        /// Reads everything and keeps the fleet's alerts (`add-hub`, schema version 2).
        case hub = "netvigil_hub"
    }

    /// Writes a new password to `passwordFile`, then creates or updates role `name` with it, a member of `group`.
    public static func addAgent(name: String, passwordFile: String, group: Group = .agent, connection: PostgresConnection,
                                logger: Logger) async throws(FleetError) -> Outcome {
        guard FleetSection.isValidAgentName(name) else {
            throw FleetError(.usage, "\(group == .hub ? "hub" : "agent") name: expected letters, digits, _, - and . starting with a letter (at most 63 bytes)")
        }
        let password = generatePassword()
        try writeSecret(password, to: passwordFile)
        let verifier = ScramVerifier.make(password: password, salt: randomBytes(16))
        let role = FleetMigrator.quoteIdentifier(name)
        do {
            return try await FleetMigrator.inTransaction(connection, logger: logger) {
                var groupExists = false
                for try await _ in try await connection.query("SELECT 1 FROM pg_roles WHERE rolname = \(group.rawValue)",
                                                              logger: logger).decode(Int.self) { groupExists = true }
                guard groupExists else {
                    throw FleetError(.usage, "role \(group.rawValue) does not exist: run netvigil fleet migrate first")
                }
                var exists = false
                for try await _ in try await connection.query("SELECT 1 FROM pg_roles WHERE rolname = \(name)",
                                                              logger: logger).decode(Int.self) { exists = true }
                // The verifier is made of base64 and '$:' only: it quotes safely as a literal.
                let verb = exists ? "ALTER" : "CREATE"
                try await connection.query(PostgresQuery(unsafeSQL: "\(verb) ROLE \(role) LOGIN PASSWORD '\(verifier)'"), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "GRANT \(group.rawValue) TO \(role)"), logger: logger)
                return exists ? .passwordReplaced : .created
            }
        } catch {
            throw FleetError.classify(error)
        }
    }

    /// 32 random bytes as base64url without padding (43 characters).
    static func generatePassword() -> String {
        Data(randomBytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Writes `secret` and a newline to `path` with mode 0600 from the start (created with it, or an existing file
    /// truncated and set to it before the write); a symbolic link is refused.
    static func writeSecret(_ secret: String, to path: String) throws(FleetError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FleetError(.usage, "cannot write password file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            throw FleetError(.usage, "cannot make password file \(path) mode 0600: \(String(cString: strerror(errno)))")
        }
        let bytes = Array((secret + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw FleetError(.usage, "cannot write password file \(path): \(String(cString: strerror(errno)))")
        }
    }
}
