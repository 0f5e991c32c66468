import Foundation

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, as `fleet.postgres` and `netvigil fleet … --postgres` take it.
///
/// The password (from the URL, usually through `${ENV}`) is a ``Secret``: the description shows the URL without it, so
/// the value can go into a log line or an error.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The login role; nil: the caller decides (the agent's name for an agent).
    public var user: String?
    public var password: Secret?
    public var database: String

    public init(host: String, port: Int = 5432, user: String?, password: Secret?, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Why a text is not a PostgreSQL URL; the message never quotes the text (it may hold a password).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses `text`; query parameters are refused (TLS is set with `fleet.tls`, not `sslmode`).
    public init(parsing text: String) throws(ParseError) {
        let usage = "expected postgres://USER@HOST[:PORT]/DATABASE"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "postgres" || scheme == "postgresql" else {
            throw ParseError(message: usage)
        }
        guard let host = components.host, !host.isEmpty else { throw ParseError(message: "\(usage): the host is missing") }
        guard components.query == nil, components.fragment == nil else {
            throw ParseError(message: "\(usage): query parameters are not read (set TLS with fleet.tls or --tls)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ParseError(message: "\(usage): the database name is missing")
        }
        if let port = components.port, !(1...65_535).contains(port) { throw ParseError(message: "\(usage): port out of range") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        self.user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        self.password = components.password.flatMap { $0.isEmpty ? nil : Secret($0) }
        self.database = database
    }

    /// Whether the host is this machine (`localhost`, 127.0.0.0/8, `::1`): only such a connection may go without TLS.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The URL without its password.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user.map { "\($0)@" } ?? "")\(hostPart):\(port)/\(database)"
    }
}
