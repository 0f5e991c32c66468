import Foundation

extension ServiceProcess {
    /// Debian's pgbouncer in transaction pooling in front of `postgresPort`, as the `postgres` user (it refuses to run
    /// as root): database `database` on `pgbouncer`'s port, SCRAM towards clients, `users` (name → password) in its
    /// auth file, which it also uses to log in to PostgreSQL as each user.
    public static func pgbouncer(postgresPort: Int, database: String, users: [String: String]) throws -> ServiceProcess {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let userlist = users.sorted { $0.key < $1.key }.map { "\"\($0.key)\" \"\($0.value)\"" }.joined(separator: "\n")
        _ = try directory.write("userlist.txt", userlist + "\n")
        let configuration = try directory.write("pgbouncer.ini", """
            [databases]
            \(database) = host=127.0.0.1 port=\(postgresPort) dbname=\(database)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = scram-sha-256
            auth_file = \(directory.path("userlist.txt"))
            pool_mode = transaction
            max_client_conn = 500
            default_pool_size = 10
            server_tls_sslmode = disable
            ignore_startup_parameters = extra_float_digits,options
            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.path("userlist.txt"))
        try setup("/usr/bin/chown", ["-R", "postgres:postgres", directory.url.path])
        return try ServiceProcess(
            name: "pgbouncer", executable: "/usr/bin/setpriv",
            arguments: ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", "/usr/sbin/pgbouncer", configuration],
            directory: directory, ports: ["pgbouncer": port], stopSignal: SIGINT)
    }
}
