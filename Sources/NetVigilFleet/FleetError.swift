import NIOSSL
import PostgresNIO

/// Why talking to the fleet database failed, sorted into the kinds operators act on differently. The message is built
/// from the server's own words and the connection's failure, never from the URL or the password.
public struct FleetError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The host cannot be reached (refused, unreachable, timed out, connection lost) or is not taking connections
        /// (shutting down, starting up, out of connection slots).
        case connect
        /// The TLS handshake failed: the certificate is not trusted or not for this host, or the server has no TLS.
        case tls
        /// The server refused the login (wrong password, no such role, pg_hba).
        case authentication
        /// The server refused a statement for want of privilege (row-level security included).
        case permission
        /// Any other error the server reported.
        case server
        /// The local SQLite store could not be read or written.
        case localStore = "local_store"
        /// Bad input to a command (an invalid name, an unwritable password file).
        case usage
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    /// Sorts any error a postgres-nio call threw.
    public static func classify(_ error: any Error) -> FleetError {
        if let error = error as? FleetError { return error }
        if let error = error as? PostgresTransactionError {
            if let inner = error.beginError ?? error.closureError ?? error.commitError { return classify(inner) }
        }
        guard let error = error as? PSQLError else {
            if error is NIOSSLError { return FleetError(.tls, "TLS handshake failed: \(error)") }
            return FleetError(.connect, "\(error)")
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "error \(state)"
            switch state {
            case "28P01", "28000": return FleetError(.authentication, "\(message) (SQLSTATE \(state))")
            case "42501": return FleetError(.permission, "\(message) (SQLSTATE \(state))")
            // Shutting down, starting up, out of connection slots, a broken connection: the server is not there to
            // take rows right now, as when it cannot be reached.
            case let state where state.hasPrefix("57P") || state.hasPrefix("08") || state == "53300":
                return FleetError(.connect, "\(message) (SQLSTATE \(state))")
            // An undefined column or table: the schema is older than this netvigil (agents and hubs upgraded first).
            case "42703", "42P01":
                return FleetError(.server, "\(message) (SQLSTATE \(state)): the database's schema is older than this netvigil's "
                                  + "(version \(FleetSchema.currentVersion)); run `netvigil fleet migrate`")
            default: return FleetError(.server, "\(message) (SQLSTATE \(state))")
            }
        }
        switch error.code {
        case .sslUnsupported:
            return FleetError(.tls, "the server does not offer TLS (tls.mode requires it)")
        case .failedToAddSSLHandler:
            return FleetError(.tls, "cannot set up TLS for the connection")
        default:
            break
        }
        if let underlying = error.underlying {
            if underlying is NIOSSLError || "\(String(reflecting: underlying))".contains("NIOSSL") {
                return FleetError(.tls, "TLS handshake failed: \(underlying)")
            }
            return FleetError(.connect, "cannot reach the server: \(underlying)")
        }
        return FleetError(.connect, "\(error.code)")
    }
}
