import Foundation
import XCTest

/// Runs a program to completion (no shell; a bare name is looked up in PATH) through `ProcessRunner`; with `check`,
/// a non-zero exit fails the test and throws.
@discardableResult
public func runProcess(_ arguments: [String], check: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws
    -> ProcessRunner.Result
{
    let absolute = arguments[0].hasPrefix("/")
    let result = try ProcessRunner.run(absolute ? Array(arguments.dropFirst()) : arguments,
                                       executable: URL(fileURLWithPath: absolute ? arguments[0] : "/usr/bin/env"))
    if check && result.status != 0 {
        XCTFail("\(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)", file: file, line: line)
        throw NamespaceError.commandFailed(arguments.joined(separator: " "), result.stderr)
    }
    return result
}

public enum NamespaceError: Error {
    case commandFailed(String, String)
    case notRoot
}

/// A network namespace created for one test (`nvt-<pid>-<n>`), removed in teardown even when the test fails.
/// Never touches the host's own interfaces: every command runs with `ip -n NAME` or `ip netns exec NAME`.
public final class NetworkNamespace: @unchecked Sendable {
    public let name: String
    private var removed = false
    nonisolated(unsafe) private static var counter = 0
    nonisolated(unsafe) private static var cleaned = false

    /// `/var/run/netns/NAME`, for `ReachabilityMonitor.Options.networkNamespacePath`.
    public var path: String { "/var/run/netns/\(name)" }

    /// Creates the namespace and brings its loopback up. Skips the test when not root.
    public init(for testCase: XCTestCase) throws {
        guard getuid() == 0 else { throw XCTSkip("network-namespace tests need root (CI runs them as root)") }
        Self.cleanStale()
        Self.counter += 1
        name = "nvt-\(getpid())-\(Self.counter)"
        try runProcess(["ip", "netns", "add", name])
        testCase.addTeardownBlock { [self] in self.remove() }
        try ip("link", "set", "lo", "up")
    }

    /// `ip -n NAME ARGS...`.
    @discardableResult
    public func ip(_ arguments: String..., check: Bool = true) throws -> ProcessRunner.Result {
        try runProcess(["ip", "-n", name] + arguments, check: check)
    }

    /// `ip netns exec NAME ARGS...`.
    @discardableResult
    public func exec(_ arguments: [String], check: Bool = true) throws -> ProcessRunner.Result {
        try runProcess(["ip", "netns", "exec", name] + arguments, check: check)
    }

    /// A veth pair `a`–`b` inside the namespace, both up, `a` with `address` (CIDR).
    public func addVethPair(_ a: String, _ b: String, address: String? = nil) throws {
        try ip("link", "add", a, "type", "veth", "peer", "name", b)
        try ip("link", "set", a, "up")
        try ip("link", "set", b, "up")
        if let address { try ip("addr", "add", address, "dev", a) }
    }

    /// Files for `ip netns exec` (bind-mounted over /etc): `/etc/netns/NAME/FILE`.
    public func writeEtcFile(_ file: String, _ contents: String) throws {
        let dir = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try contents.write(toFile: "\(dir)/\(file)", atomically: true, encoding: .utf8)
    }

    public func remove() {
        guard !removed else { return }
        removed = true
        _ = try? runProcess(["ip", "netns", "del", name], check: false)
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }

    deinit { remove() }

    /// Removes `nvt-PID-*` namespaces left by test processes that no longer exist.
    public static func cleanStale() {
        guard !cleaned else { return }
        cleaned = true
        guard let list = try? runProcess(["ip", "netns", "list"], check: false) else { return }
        for line in list.stdout.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == "nvt", let pid = Int32(parts[1]) else { continue }
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
                _ = try? runProcess(["ip", "netns", "del", name], check: false)
                try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
            }
        }
    }
}
