import Foundation

/// A real `openssl s_server -www` on loopback that requires a client certificate the way OpenSSL-based servers
/// (and nginx's stream module, HAProxy, Go with `RequireAndVerifyClientCert`) do: in the handshake, answering a
/// missing certificate with `certificate_required` (TLS 1.3) or `handshake_failure` (TLS 1.2) and a refused one with
/// the verification alert (`unknown_ca`, ...). nginx's http module completes the handshake and answers 400 instead.
public final class OpenSSLServerProcess {
    public let port: Int
    public let process: Process

    /// - Parameters:
    ///   - version: "1.2" or "1.3": the only version offered.
    ///   - clientCA: the CA file client certificates must chain to.
    public init(certificate: String, key: String, clientCA: String, version: String, timeout: TimeInterval = 10) throws {
        port = ProcessRunner.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key,
                             "-Verify", "1", "-verify_return_error", "-CAfile", clientCA, "-www", "-quiet",
                             version == "1.2" ? "-tls1_2" : "-tls1_3"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while !ProcessRunner.accepts(port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw NginxError(message: "openssl s_server did not listen on \(port)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Stops the server: SIGKILL (it keeps no state; a child started from a test thread may inherit a mask that
    /// blocks SIGTERM), then waits up to 5 s for it to go.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    deinit { stop() }
}
