import Logging
import NetVigilAgent
import NIOSSL
import PostgresNIO

/// Opens connections to the fleet database as `fleet:` or a `netvigil fleet` command describes it.
///
/// A single connection, no pool and no session state: every unit of work is one statement or one transaction, so
/// the same code runs through pgbouncer's transaction pooling. postgres-nio's `query` uses the unnamed prepared
/// statement (Parse/Bind/Execute/Sync in one round), which pgbouncer passes within a transaction; named prepared
/// statements are never used.
public struct FleetConnector: Sendable {
    public var url: PostgresURL
    public var password: Secret?
    public var tlsMode: FleetTLSMode
    public var caFile: String?
    public var connectTimeout: Duration

    public init(url: PostgresURL, password: Secret?, tlsMode: FleetTLSMode, caFile: String?, connectTimeout: Duration = .seconds(10)) {
        self.url = url
        self.password = password
        self.tlsMode = tlsMode
        self.caFile = caFile
        self.connectTimeout = connectTimeout
    }

    /// The agent's connector.
    public init(section: FleetSection) {
        self.init(url: section.url, password: section.password, tlsMode: section.tlsMode, caFile: section.caFile)
    }

    /// What `tlsMode` and `caFile` ask of TLS; nil for `disable`. The one place the modes are read, for the
    /// agent's connection and the hub's pool alike.
    func tlsConfiguration() -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable:
            return nil
        case .require:
            configuration.certificateVerification = .none
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            if let caFile { configuration.trustRoots = .file(caFile) }
        }
        return configuration
    }

    /// The TLS part of the connection's configuration.
    func tls() throws(FleetError) -> PostgresConnection.Configuration.TLS {
        guard let configuration = tlsConfiguration() else { return .disable }
        do {
            return .require(try NIOSSLContext(configuration: configuration))
        } catch {
            throw FleetError(.tls, "cannot load the TLS settings\(caFile.map { " (CA file \($0))" } ?? ""): \(error)")
        }
    }

    /// The hub's connector.
    public init(section: FleetHubSection) {
        self.init(url: section.url, password: section.password, tlsMode: section.tlsMode, caFile: section.caFile)
    }

    /// A pool's configuration (the hub's ``PostgresClient``), with the same TLS rules as ``connect(logger:)``.
    public func clientConfiguration(maximumConnections: Int) throws(FleetError) -> PostgresClient.Configuration {
        guard let user = url.user else { throw FleetError(.usage, "the PostgreSQL URL names no user (postgres://USER@HOST/DATABASE)") }
        let mode: PostgresClient.Configuration.TLS = tlsConfiguration().map { .require($0) } ?? .disable
        var configuration = PostgresClient.Configuration(host: url.host, port: url.port, username: user,
                                                         password: password?.value, database: url.database, tls: mode)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }

    /// `logger` for postgres-nio: never below info, because the driver's trace lines print its connection actions,
    /// the authentication context (the password) among them.
    public static func driverLogger(_ logger: Logger) -> Logger {
        var driver = logger
        if driver.logLevel < .info { driver.logLevel = .info }
        return driver
    }

    /// A new, authenticated connection; the connection logs through ``driverLogger(_:)``.
    public func connect(logger: Logger) async throws(FleetError) -> PostgresConnection {
        let logger = Self.driverLogger(logger)
        guard let user = url.user else { throw FleetError(.usage, "the PostgreSQL URL names no user (postgres://USER@HOST/DATABASE)") }
        var configuration = PostgresConnection.Configuration(host: url.host, port: url.port, username: user,
                                                             password: password?.value, database: url.database, tls: try tls())
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw FleetError.classify(error)
        }
    }
}
