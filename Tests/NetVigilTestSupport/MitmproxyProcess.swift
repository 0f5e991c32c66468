import Foundation

/// mitmproxy's `mitmdump` (PyPI package `mitmproxy`) on 127.0.0.1 for one test: a TLS-intercepting proxy that
/// answers CONNECT, then serves the client a chain it forges with its own CA (`caCertificatePath`) while it talks
/// TLS to the origin (checked against `upstreamCA`).
public final class MitmproxyProcess {
    public let port = ProcessRunner.freePort()
    public let directory: TemporaryDirectory
    private var server: ListeningProcess?

    /// Starts mitmdump; throws naming the package when it is not installed.
    public init(upstreamCA: String) throws {
        directory = try TemporaryDirectory()
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        guard let mitmdump = ListeningProcess.executable(
            named: "mitmdump", extraDirectories: ["/usr/local/bin", home + "/.local/bin", home + "/.pyenv/shims"]) else {
            throw ListeningProcessError(message: "mitmdump not found: install the PyPI package mitmproxy (make test-deps)")
        }
        server = try ListeningProcess(
            executable: mitmdump,
            arguments: ["--listen-host", "127.0.0.1", "--listen-port", String(port), "--set", "confdir=\(directory.url.path)",
                        "--set", "ssl_verify_upstream_trusted_ca=\(upstreamCA)"],
            port: port, logPath: directory.path("mitmdump.log"), timeout: 60)
    }

    /// `http://127.0.0.1:PORT`.
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
