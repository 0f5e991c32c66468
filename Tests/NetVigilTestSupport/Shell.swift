import Foundation

/// Runs a program to completion; throws with its stderr when it fails.
@discardableResult
public func run(_ executable: String, _ arguments: [String], cwd: String? = nil) throws -> String {
    let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: executable),
                                       currentDirectory: cwd.map { URL(fileURLWithPath: $0) })
    guard result.status == 0 else {
        throw TestSetupError("\(executable) \(arguments.joined(separator: " ")) exited \(result.status): " + result.stderr)
    }
    return result.stdout
}

/// A test fixture could not be set up.
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
public func freePort() -> Int { ProcessRunner.freePort() }

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
public func waitForPort(_ port: Int, timeout: TimeInterval = 10) throws {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(fd)
        if status == 0 { return }
        usleep(20_000)
    }
    throw TestSetupError("nothing listens on 127.0.0.1:\(port) after \(timeout) s")
}

/// Ends a child process: SIGTERM, then SIGKILL after 2 s.
public func terminate(_ process: Process) { ProcessRunner.stop(process, grace: 2) }
