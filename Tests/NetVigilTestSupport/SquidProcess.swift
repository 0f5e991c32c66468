import Foundation

/// A real squid (Debian package) on 127.0.0.1 for one test: a temporary directory, no cache, no daemon, an access
/// log to read. Optionally basic authentication (basic_ncsa_auth with an htpasswd file made by `openssl passwd`)
/// and CONNECT limited to some ports (others get 403).
public final class SquidProcess {
    public let port = ProcessRunner.freePort()
    public let directory: TemporaryDirectory
    private var server: ListeningProcess?

    /// Starts squid. `connectPorts`: the ports CONNECT may reach (nil: any). `credentials`: required proxy login.
    public init(connectPorts: [Int]? = nil, credentials: (user: String, password: String)? = nil) throws {
        directory = try TemporaryDirectory()
        // squid's workers and helpers run as the `proxy` user: they read and write here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.url.path)
        var auth = ""
        if let credentials {
            let hash = try ProcessRunner.run(["passwd", "-apr1", credentials.password],
                                             executable: URL(fileURLWithPath: "/usr/bin/openssl"), timeout: 10)
            let passwords = try directory.write("passwords", "\(credentials.user):\(hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines))\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwords)
            auth = """
                auth_param basic program /usr/lib/squid/basic_ncsa_auth \(passwords)
                auth_param basic realm netvigil-test
                auth_param basic children 1
                acl authenticated proxy_auth REQUIRED
                http_access deny !authenticated
                """
        }
        let portRule = connectPorts.map { ports in
            "acl tunnel_ports port \(ports.map(String.init).joined(separator: " "))\nhttp_access deny CONNECT !tunnel_ports"
        } ?? ""
        let config = try directory.write("squid.conf", """
            http_port 127.0.0.1:\(port)
            pid_filename none
            cache deny all
            cache_mem 8 MB
            cache_store_log none
            access_log stdio:\(directory.path("access.log"))
            cache_log \(directory.path("cache.log"))
            coredump_dir \(directory.url.path)
            pinger_enable off
            shutdown_lifetime 0 seconds
            acl CONNECT method CONNECT
            \(portRule)
            \(auth)
            http_access allow all
            """)
        server = try ListeningProcess(executable: "/usr/sbin/squid", arguments: ["-N", "-f", config], port: port,
                                      logPath: directory.path("squid.out"))
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The access log so far (squid writes a line when a transaction ends).
    public func accessLog() -> String {
        (try? String(contentsOfFile: directory.path("access.log"), encoding: .utf8)) ?? ""
    }

    /// Waits up to `timeout` for the access log to contain `text`; returns the log.
    public func accessLog(waitingFor text: String, timeout: TimeInterval = 5) -> String {
        Poll.until(timeout: timeout) { accessLog().contains(text) }
        return accessLog()
    }

    /// Stops squid (it has nothing to save: a short grace, then SIGKILL; its helpers exit on their closed pipe).
    public func stop() {
        server?.stop(grace: 1)
        server = nil
    }

    deinit { stop() }
}
