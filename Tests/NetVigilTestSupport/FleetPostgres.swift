import Foundation

/// A PostgreSQL 15 cluster for the fleet tests (issue #53): `initdb` in a temporary directory with scram-sha-256
/// for every connection and a superuser password, TLS with the given certificate, one database `fleet`; started,
/// stopped and started again on the same port and data directory (an outage), `psql` for the checks.
///
/// Stopping uses SIGINT (PostgreSQL's fast shutdown: clients are disconnected), as an outage would; SIGTERM waits
/// for every client, and the agents never leave.
public final class FleetPostgres {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public let directory: TemporaryDirectory
    public let port: Int
    /// The superuser's password (the test's own secret, for `psql` and `netvigil fleet`).
    public let superuserPassword = "super-\(UUID().uuidString)"
    public let database = "fleet"
    private var server: ServiceProcess?

    /// initdb, then start; fails (never skips) when the server cannot be set up or does not listen.
    public init(certificate: String, key: String) throws {
        directory = try TemporaryDirectory()
        let root = directory.url.path
        port = ProcessRunner.freePort()
        try FileManager.default.copyItem(atPath: certificate, toPath: directory.path("tls.pem"))
        try FileManager.default.copyItem(atPath: key, toPath: directory.path("tls.key"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.path("tls.key"))
        let passwordFile = try directory.write("superuser.pass", superuserPassword + "\n")
        try ServiceProcess.setup("/usr/bin/chown", ["-R", "postgres:postgres", root])
        try ServiceProcess.setup("/usr/bin/setpriv", Self.asPostgres + [
            "\(Self.binaries)/initdb", "-D", "\(root)/data", "--auth=scram-sha-256", "--pwfile=\(passwordFile)",
            "--no-sync", "-U", "postgres", "--encoding=UTF8", "--locale=C"])
        try start()
        let created = try psql("CREATE DATABASE \(database)", database: "postgres")
        guard created.status == 0 else { throw ServiceProcessError(message: "CREATE DATABASE: \(created.stderr)") }
    }

    static let asPostgres = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--"]

    /// Starts the server on `port` (again after `stop()`); returns when it accepts connections.
    public func start() throws {
        let root = directory.url.path
        server = try ServiceProcess(
            name: "postgres", executable: "/usr/bin/setpriv",
            arguments: Self.asPostgres + ["\(Self.binaries)/postgres", "-D", "\(root)/data", "-c", "port=\(port)",
                                          "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=\(root)",
                                          "-c", "ssl=on", "-c", "ssl_cert_file=\(root)/tls.pem", "-c", "ssl_key_file=\(root)/tls.key",
                                          "-c", "fsync=off", "-c", "max_connections=200"],
            directory: directory, ports: ["postgres": port], stopSignal: SIGINT, timeout: 30)
        // Accepting TCP is not yet accepting logins (recovery after a stop): wait for a query to work.
        guard Poll.until(timeout: 30, { (try? self.psql("SELECT 1", database: "postgres"))?.status == 0 }) else {
            throw ServiceProcessError(message: "postgres accepts TCP but no login: \(server?.log.suffix(2_000) ?? "")")
        }
    }

    /// Fast shutdown (clients disconnected); waits until the process has gone.
    public func stop() {
        server?.stop()
        server = nil
    }

    deinit { stop() }

    /// What the server logged since its last start.
    public var log: String { server?.log ?? "" }

    /// The server's unix socket (in its socket directory, the cluster's scratch directory): `local` connections,
    /// scram-sha-256 as every other (initdb's `--auth`), never TLS.
    public var socketPath: String { directory.path(".s.PGSQL.\(port)") }

    /// `postgres://USER@localhost:PORT/fleet`.
    public func url(user: String = "postgres", host: String = "localhost", port: Int? = nil) -> String {
        "postgres://\(user)@\(host):\(port ?? self.port)/\(database)"
    }

    /// Runs `sql` with psql over TCP as `user` (`-At`: unaligned rows, `|` between columns); TLS is not asked for
    /// (loopback), so the result is about the SQL alone.
    public func psql(_ sql: String, user: String = "postgres", password: String? = nil, database: String? = nil) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            ["-X", "-v", "ON_ERROR_STOP=1", "-At", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database ?? self.database,
             "-c", sql],
            executable: URL(fileURLWithPath: "\(Self.binaries)/psql"),
            environment: ["PGPASSWORD": password ?? superuserPassword, "PGSSLMODE": "disable", "PATH": "/usr/bin:/bin"],
            timeout: 30)
    }

    /// The rows of `sql` as the superuser, each split at `|`; fails the caller with psql's error.
    public func rows(_ sql: String) throws -> [[String]] {
        let result = try psql(sql)
        guard result.status == 0 else { throw ServiceProcessError(message: "psql \(sql): \(result.stderr)") }
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }
}
