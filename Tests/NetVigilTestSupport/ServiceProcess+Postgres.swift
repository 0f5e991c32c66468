import Foundation

extension ServiceProcess {
    /// PostgreSQL 15 (`initdb` in a temporary directory, then `postgres` in the foreground, both as the `postgres`
    /// user through setpriv): port `postgres` on 127.0.0.1 with `ssl = on` serving `certificate`/`key`, or with
    /// `ssl = off` when `ssl` is false.
    public static func postgres(certificate: String, key: String, ssl: Bool = true) throws -> ServiceProcess {
        let directory = try TemporaryDirectory()
        let root = directory.url.path
        let binaries = "/usr/lib/postgresql/15/bin"
        let port = ProcessRunner.freePort()
        try FileManager.default.copyItem(atPath: certificate, toPath: directory.path("tls.pem"))
        try FileManager.default.copyItem(atPath: key, toPath: directory.path("tls.key"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.path("tls.key"))
        try setup("/usr/bin/chown", ["-R", "postgres:postgres", root])
        let asPostgres = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
        try setup("/usr/bin/setpriv", asPostgres + ["\(binaries)/initdb", "-D", "\(root)/data", "-A", "trust", "--no-sync", "-U", "postgres"])
        return try ServiceProcess(
            name: "postgres", executable: "/usr/bin/setpriv",
            arguments: asPostgres + ["\(binaries)/postgres", "-D", "\(root)/data", "-c", "port=\(port)", "-c", "listen_addresses=127.0.0.1",
                                     "-c", "unix_socket_directories=\(root)", "-c", "ssl=\(ssl ? "on" : "off")",
                                     "-c", "ssl_cert_file=\(root)/tls.pem", "-c", "ssl_key_file=\(root)/tls.key", "-c", "fsync=off"],
            directory: directory, ports: ["postgres": port])
    }
}
