import Foundation
import XCTest

/// Runs real processes: the built `netvigil` binary, curl, python3, ip.
public enum ProcessRunner {
    /// The `netvigil` binary built next to the test bundle.
    public static let binary: URL = {
        let bundle = Bundle.main.bundleURL
        let candidates = [bundle.deletingLastPathComponent(), bundle,
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for directory in candidates {
            let url = directory.appendingPathComponent("netvigil")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("netvigil")
    }()

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs to completion (killed after `timeout`).
    public static func run(_ arguments: [String], executable: URL = binary, environment: [String: String]? = nil,
                    currentDirectory: URL? = nil, timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = DispatchTime.now() + timeout
        let group = DispatchGroup()
        let outData = DataBox(), errData = DataBox()
        group.enter()
        DispatchQueue.global().async { outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: deadline) == .timedOut {
            // SIGKILL: a child started from a test thread may inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            XCTFail("\(arguments) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self),
                      stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// Collects a pipe's bytes on another thread; read only after the group is done.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }

    /// A TCP port for a test server on loopback: free a moment ago, outside the kernel's ephemeral range and never
    /// handed out twice in this process (see `TestPorts`).
    public static func freePort() -> Int { TestPorts.take() }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds now (a test server is listening).
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Stops `process`: `signal` (SIGTERM unless told), then SIGKILL if it still runs after `grace`.
    public static func stop(_ process: Process, signal: Int32 = SIGTERM, grace: TimeInterval = 5) {
        stopAll([process], signal: signal, grace: grace)
    }

    /// Stops `processes` together: `signal` (SIGTERM unless told: daemons shut down cleanly) to all, then SIGKILL to
    /// those still running after `grace`, and waits up to 5 s more for them to go. Polls `isRunning`:
    /// `waitUntilExit` can block for good on a killed child here.
    public static func stopAll(_ processes: [Process], signal: Int32 = SIGTERM, grace: TimeInterval = 10) {
        for process in processes where process.isRunning { kill(process.processIdentifier, signal) }
        var deadline = Date().addingTimeInterval(grace)
        while processes.contains(where: \.isRunning) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        deadline = Date().addingTimeInterval(5)
        while processes.contains(where: \.isRunning) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// `curl` a URL: (HTTP status, body). `namespace`: from inside that network namespace (`ip netns exec`).
    public static func curl(_ url: String, headers: [String] = [], namespace: String? = nil) throws -> (Int, String) {
        var arguments = ["-s", "-m", "5", "-w", "\n%{http_code}", url]
        for header in headers { arguments += ["-H", header] }
        let result = if let namespace {
            try run(["netns", "exec", namespace, "/usr/bin/curl"] + arguments, executable: URL(fileURLWithPath: "/usr/sbin/ip"),
                    timeout: 10)
        } else {
            try run(arguments, executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 10)
        }
        var lines = result.stdout.components(separatedBy: "\n")
        let code = Int(lines.removeLast()) ?? 0
        return (code, lines.joined(separator: "\n"))
    }
}

/// A temporary directory removed when the test ends.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("netvigil-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
