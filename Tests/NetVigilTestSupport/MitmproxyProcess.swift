import Foundation

/// mitmproxy's `mitmdump` (PyPI package `mitmproxy`) for one test: a TLS-intercepting proxy that serves its client a
/// chain it forges with its own CA (`caCertificatePath`) while it talks TLS to the origin (checked against
/// `upstreamCA`). Either an explicit proxy on 127.0.0.1 that answers CONNECT, or a reverse proxy inside a network
/// namespace, on the address a client there connects to: an interception on the path, which the client cannot tell
/// from the origin but by the chain.
public final class MitmproxyProcess {
    public let port: Int
    public let directory: TemporaryDirectory
    private var server: ListeningProcess?

    /// Starts mitmdump as an explicit proxy on 127.0.0.1; throws naming the package when it is not installed.
    public convenience init(upstreamCA: String) throws {
        let port = ProcessRunner.freePort()
        try self.init(port: port, host: "127.0.0.1", launcher: [], upstreamCA: upstreamCA,
                      arguments: ["--listen-host", "127.0.0.1", "--listen-port", String(port)])
    }

    /// Starts mitmdump in reverse mode inside network namespace `namespace` (`ip netns exec`, which execs it: the
    /// process is mitmdump): it listens on `host`:`port` there and forwards every connection to `upstream` (e.g.
    /// `https://localhost:8443/`, as seen from the namespace).
    public convenience init(reverseTo upstream: String, upstreamCA: String, host: String, port: Int, namespace: String) throws {
        try self.init(port: port, host: host, launcher: ["/usr/sbin/ip", "netns", "exec", namespace], upstreamCA: upstreamCA,
                      arguments: ["--mode", "reverse:\(upstream)", "--listen-host", host, "--listen-port", String(port)])
    }

    private init(port: Int, host: String, launcher: [String], upstreamCA: String, arguments: [String]) throws {
        self.port = port
        directory = try TemporaryDirectory()
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        guard let mitmdump = ListeningProcess.executable(
            named: "mitmdump", extraDirectories: ["/usr/local/bin", home + "/.local/bin", home + "/.pyenv/shims"]) else {
            throw ListeningProcessError(message: "mitmdump not found: install the PyPI package mitmproxy (make test-deps)")
        }
        let command = launcher + [mitmdump] + arguments + [
            "--set", "confdir=\(directory.url.path)", "--set", "ssl_verify_upstream_trusted_ca=\(upstreamCA)"]
        server = try ListeningProcess(executable: command[0], arguments: Array(command.dropFirst()), port: port, host: host,
                                      logPath: directory.path("mitmdump.log"), timeout: 60)
    }

    /// `http://127.0.0.1:PORT` (the explicit proxy's).
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The CA mitmproxy forges server chains with (made at its first start).
    public var caCertificatePath: String { directory.path("mitmproxy-ca-cert.pem") }

    /// What mitmdump printed (connections, requests, errors).
    public func log() -> String { server?.log() ?? "" }

    public func stop() {
        server?.stop()
        server = nil
    }

    deinit { stop() }
}
