import Foundation

/// A server for one test (squid, mitmproxy, socat, ...): run in the foreground with its output in a log file, ready
/// once its port listens on its IPv4 address (127.0.0.1 unless told; read from /proc, so no probe connection shows up
/// in its logs, and in the process's own network namespace), stopped with SIGTERM and, after a grace period, SIGKILL.
public final class ListeningProcess {
    public let process = Process()
    /// stdout and stderr of the process.
    public let logPath: String

    /// Starts `executable` and waits until `host`:`port` listens; throws with the end of the log when it does not.
    public init(executable: String, arguments: [String], port: Int, host: String = "127.0.0.1", logPath: String,
                timeout: TimeInterval = 30) throws {
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try? output.close()
        let deadline = Date().addingTimeInterval(timeout)
        while !Self.isListening(port: port, host: host, process: process.processIdentifier) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw ListeningProcessError(message: "\((executable as NSString).lastPathComponent) did not listen on \(host):\(port): "
                                            + String(log().suffix(1_500)))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// What the process wrote so far.
    public func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL after `grace`.
    public func stop(grace: TimeInterval = 5) { ProcessRunner.stop(process, grace: grace) }

    deinit { stop() }

    /// Whether a socket listens on `host`:`port` (an IPv4 literal; state 0A) in the network namespace of `process`,
    /// read from /proc/PID/net/tcp to its end (`String(contentsOfFile:)` stops after 4 KiB of a /proc file: ~27 sockets).
    public static func isListening(port: Int, host: String = "127.0.0.1", process: Int32) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(process)/net/tcp") else { return false }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        // The table prints the address as the 32-bit value in host byte order, which is what inet_addr returns.
        let local = String(format: "%08X:%04X", inet_addr(host), port)
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }

    /// The first executable `name` on PATH or in `extraDirectories`.
    public static func executable(named name: String, extraDirectories: [String] = []) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A test server could not be started.
public struct ListeningProcessError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
