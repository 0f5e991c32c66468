import Foundation

/// socat (Debian package `socat`) inside a network namespace for one test: TCP on 127.0.0.1:`port` there, each
/// connection forwarded to the unix socket at `socketPath`. Filesystem sockets are not bound to a network namespace,
/// so this is how a namespace reaches a server of the host's (nginx's `listen unix:`, PostgreSQL's socket directory)
/// without a veth end, route or address in the host's namespace.
public final class UnixSocketBridge {
    public let port: Int
    public let directory: TemporaryDirectory
    private var server: ListeningProcess?

    /// Starts socat in `namespace` (`ip netns exec`, which execs it) and waits until it listens there; throws naming
    /// the package when socat is not installed, or with socat's log when it does not listen.
    public init(namespace: String, port: Int, socketPath: String) throws {
        self.port = port
        directory = try TemporaryDirectory()
        guard let socat = ListeningProcess.executable(named: "socat", extraDirectories: ["/usr/bin"]) else {
            throw ListeningProcessError(message: "socat not found: install the Debian package socat (make test-deps)")
        }
        server = try ListeningProcess(
            executable: "/usr/sbin/ip",
            arguments: ["netns", "exec", namespace, socat, "-d", "-d", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork",
                        "UNIX-CONNECT:\(socketPath)"],
            port: port, logPath: directory.path("socat.log"), timeout: 10)
    }

    /// What socat logged (connections, errors).
    public func log() -> String { server?.log() ?? "" }

    /// Stops the listener (SIGTERM); a connection's child ends when either side closes it.
    public func stop() {
        server?.stop()
        server = nil
    }

    deinit { stop() }
}
