import Foundation

/// `fleet:` — copy this agent's history to a central PostgreSQL (issue #53, docs/fleet.md).
///
/// ```yaml
/// fleet:
///   postgres: postgres://web1@db.example.net/netvigil
///   password_file: /etc/netvigil/fleet.pass     # or ${ENV} as the URL's password
///   tls: { mode: verify-full, ca: /etc/netvigil/fleet-ca.pem }
///   agent: web1                                 # default: the host name; must be the login role
///   heartbeat: 30s
/// ```
/// The password never appears in an error or log line: errors name the key and the file, not the value.
public struct FleetSection: Sendable, Equatable {
    public static let key = "fleet"
    public static let allowedKeys = ["postgres", "password_file", "tls", "agent", "heartbeat"]
    static let tlsKeys = ["mode", "ca"]

    /// Where to connect; `user` is the agent's name when the URL has none.
    public var url: PostgresURL
    /// From `password_file` or the URL; nil: the server asks for none (trust or certificate authentication).
    public var password: Secret?
    public var tlsMode: FleetTLSMode
    /// PEM CA certificates for `verify-full`; nil: the system's trust store.
    public var caFile: String?
    /// The agent's name: the `agent` column of its rows and its login role.
    public var agent: String
    /// How often the agent's row in `agents` is upserted; the shipping lag warning is ten of these.
    public var heartbeat: Duration

    public init(url: PostgresURL, password: Secret?, tlsMode: FleetTLSMode, caFile: String?, agent: String,
                heartbeat: Duration = .seconds(30)) {
        self.url = url
        self.password = password
        self.tlsMode = tlsMode
        self.caFile = caFile
        self.agent = agent
        self.heartbeat = heartbeat
    }

    /// A role name PostgreSQL and the documentation agree on: letters, digits, `_`, `-`, `.`, at most 63 bytes,
    /// starting with a letter (so the name quotes safely as an identifier).
    public static func isValidAgentName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63, first.isASCII,
              first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".")
        }
    }

    /// Reads `fleet:`; nil when the section is absent.
    static func read(from root: ConfigMapping) throws -> FleetSection? {
        guard let value = root[key] else { return nil }
        return try FleetSection(reading: value.mapping(allowedKeys: allowedKeys))
    }

    /// Where and how to connect: `postgres`, `password_file` and `tls` of a `fleet:` mapping (the agent's and the
    /// hub's). The URL comes back without its password, which is in `password`.
    struct Connection {
        var url: PostgresURL
        var password: Secret?
        var tlsMode: FleetTLSMode
        var caFile: String?
    }

    static func readConnection(_ mapping: ConfigMapping) throws -> Connection {
        let urlValue = try mapping.required("postgres")
        var url: PostgresURL
        do {
            url = try PostgresURL(parsing: try urlValue.nonEmptyString())
        } catch let error as PostgresURL.ParseError {
            throw urlValue.error(error.message)
        }
        var password = url.password
        url.password = nil
        if let file = mapping["password_file"] {
            guard password == nil else { throw file.error("set the password either in the URL or in password_file, not both") }
            let path = try file.filePath()
            let data = try file.regularFileContents(at: path, failure: "cannot read password file \(path)")
            var text = String(decoding: data, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw file.error("password file \(path) is empty") }
            guard !ConfigValue.hasControlCharacter(text, allowsTab: false) else {
                throw file.error("password file \(path) holds control characters")
            }
            password = Secret(text)
        }
        var mode = FleetTLSMode.defaultMode(for: url)
        var caFile: String?
        if let tlsValue = mapping["tls"] {
            let tls = try tlsValue.mapping(allowedKeys: Self.tlsKeys)
            if let modeValue = tls["mode"] {
                mode = FleetTLSMode(rawValue: try modeValue.oneOf(FleetTLSMode.allCases.map(\.rawValue))) ?? mode
                if mode == .disable, !url.isLoopback {
                    throw modeValue.error("disable is allowed only for a loopback host (\(url.host) is not): use verify-full or require")
                }
            }
            if let ca = tls["ca"] {
                let path = try ca.filePath()
                try ca.requireRegularFile(path, failure: "cannot read CA file \(path)")
                guard mode == .verifyFull else { throw ca.error("ca is used only with mode verify-full") }
                caFile = path
            }
        }
        return Connection(url: url, password: password, tlsMode: mode, caFile: caFile)
    }

    init(reading mapping: ConfigMapping) throws {
        let connection = try Self.readConnection(mapping)
        var url = connection.url
        var agent = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "netvigil"
        if let value = mapping["agent"] {
            agent = try value.nonEmptyString()
            guard Self.isValidAgentName(agent) else {
                throw value.error("expected a name of letters, digits, _, - and . starting with a letter (at most 63 bytes)")
            }
        } else if let user = url.user {
            agent = user
        }
        if let user = url.user, user != agent, let value = mapping["agent"] {
            throw value.error("the agent name must be the URL's user (\(user)): rows are accepted only under the login role's own name")
        }
        guard Self.isValidAgentName(agent) else {
            throw mapping.owner.error("the host name is not a valid agent name; set fleet.agent")
        }
        url.user = agent
        var heartbeat = Duration.seconds(30)
        if let value = mapping["heartbeat"] { heartbeat = try value.duration(minimum: .seconds(1)) }
        self.init(url: url, password: connection.password, tlsMode: connection.tlsMode, caFile: connection.caFile,
                  agent: agent, heartbeat: heartbeat)
    }
}
