import Foundation

/// A real server from a Debian package (Postfix, Dovecot, slapd, PostgreSQL) run in the foreground for one test,
/// with its configuration in a temporary directory and listeners on loopback ports. Stopped on `stop()` or deinit.
public final class ServiceProcess {
    /// The server's scratch directory (configuration, state, log).
    public let directory: TemporaryDirectory
    /// The loopback ports, by the names the factory gave them.
    public let ports: [String: Int]
    private let process = Process()
    private let logPath: String
    private let stopSignal: Int32

    /// Starts `executable` with `arguments` and waits until every port accepts TCP connections; fails with the
    /// log's tail when the server exits or does not listen within `timeout`.
    public init(name: String, executable: String, arguments: [String], directory: TemporaryDirectory, ports: [String: Int],
                environment: [String: String]? = nil, stopSignal: Int32 = SIGTERM, timeout: TimeInterval = 20) throws {
        self.directory = directory
        self.stopSignal = stopSignal
        self.ports = ports
        logPath = directory.path("server.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        do { try process.run() } catch { throw ServiceProcessError(message: "\(name) (\(executable)) cannot start: \(error)") }
        let deadline = Date().addingTimeInterval(timeout)
        var waiting = Array(ports.values)
        while !waiting.isEmpty {
            waiting.removeAll { ProcessRunner.accepts(port: $0) }
            if waiting.isEmpty { break }
            guard Date() < deadline, process.isRunning else {
                stop()
                throw ServiceProcessError(message: "\(name) did not listen on \(waiting): \(self.log.suffix(2_000))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The port named `name`.
    public func port(_ name: String) -> Int { ports[name] ?? 0 }

    /// What the server logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The stop signal (SIGTERM unless told), SIGKILL after 10 s.
    public func stop() { ProcessRunner.stop(process, signal: stopSignal, grace: 10) }

    deinit { stop() }

    /// Runs a setup command; fails with its output when it does not exit 0.
    static func setup(_ executable: String, _ arguments: [String]) throws {
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: executable), timeout: 60)
        guard result.status == 0 else {
            throw ServiceProcessError(message: "\(executable) \(arguments.joined(separator: " ")): \(result.stdout) \(result.stderr)")
        }
    }
}

/// A test server could not be set up or started.
public struct ServiceProcessError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
