import Foundation

/// A real nginx (Debian package) on loopback for one test: a temporary prefix, the given `server { }` blocks,
/// no access log. `reload()` re-reads configuration and certificate files (SIGHUP to the master).
public final class NginxProcess {
    public let prefix: String
    public let process: Process

    /// Starts nginx with `servers` (the `server { ... }` blocks of the `http` context) and waits until every
    /// port in `ports` accepts TCP connections. `namespace`: run it inside that network namespace (`ip netns exec`,
    /// which execs nginx in the same process); its ports are then watched in the namespace's own socket table.
    public init(prefix: String, servers: String, ports: [Int], timeout: TimeInterval = 10, namespace: String? = nil) throws {
        self.prefix = prefix
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        let config = prefix + "/nginx.conf"
        try """
            daemon off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log;
            worker_processes 1;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
            \(servers)
            }
            """.write(toFile: config, atomically: true, encoding: .utf8)
        process = Process()
        let arguments = ["-p", prefix, "-c", config, "-e", prefix + "/logs/error.log"]
        if let namespace {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace, "/usr/sbin/nginx"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = arguments
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var waiting = ports
        while !waiting.isEmpty {
            waiting.removeAll { port in
                namespace == nil ? ProcessRunner.accepts(port: port) : Self.listens(on: port, process: process.processIdentifier)
            }
            if waiting.isEmpty { break }
            guard Date() < deadline, process.isRunning else {
                let log = errorLog()
                stop()
                throw NginxError(message: "nginx did not listen on \(waiting): \(log.suffix(1_000))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        // Another process may hold one of the ports: it accepts, while nginx retries its bind and then gives up.
        if let failure = errorLog().split(separator: "\n").first(where: { $0.contains("bind() to") && $0.contains("failed") }) {
            stop()
            throw NginxError(message: "nginx could not bind a port another process holds: \(failure)")
        }
    }

    /// What nginx wrote to its error log so far ("" if nothing).
    private func errorLog() -> String {
        (try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? ""
    }

    /// Whether a socket of `process`'s network namespace listens on TCP `port` (`/proc/PID/net/tcp{,6}`, state 0A).
    static func listens(on port: Int, process: Int32) -> Bool {
        let hex = String(format: ":%04X", port)
        return ["tcp", "tcp6"].contains { table in
            let text = (try? String(contentsOfFile: "/proc/\(process)/net/\(table)", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(hex) && fields[3] == "0A"
            }
        }
    }

    /// Re-reads the configuration and certificates (graceful: old workers finish their requests).
    public func reload() {
        if process.isRunning { kill(process.processIdentifier, SIGHUP) }
    }

    /// Stops nginx: SIGTERM (the master stops its worker too), SIGKILL after 5 s.
    public func stop() { ProcessRunner.stop(process, grace: 5) }

    deinit { stop() }
}

/// nginx could not be started.
public struct NginxError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
