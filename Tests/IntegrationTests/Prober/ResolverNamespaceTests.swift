import Foundation
import NetVigilTestSupport
import XCTest

/// DNS and address-family behaviour through `netvigil probe`, run inside a network namespace the test creates:
/// `ip netns exec` bind-mounts `/etc/netns/NAME/hosts` and `resolv.conf` over the host's, so the test controls what
/// names resolve to and which DNS server is asked, without touching the host.
final class ResolverNamespaceTests: XCTestCase {
    private var namespace = ""
    private var children: [Process] = []

    override func setUpWithError() throws {
        try XCTSkipUnless(getuid() == 0, "network namespaces need root")
        namespace = "nvres-\(getpid())"
        try ip(["netns", "add", namespace])
        try ip(["-n", namespace, "link", "set", "lo", "up"])
        let etc = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        // dual.test has both families; only 127.0.0.1 serves. The DNS server on 127.0.0.1:53 reads and never answers.
        try "127.0.0.1 dual.test\n::1 dual.test\n".write(toFile: etc + "/hosts", atomically: true, encoding: .utf8)
        try "nameserver 127.0.0.1\noptions timeout:5 attempts:2\n".write(toFile: etc + "/resolv.conf", atomically: true, encoding: .utf8)
        children.append(try spawn(["python3", "-c", """
            import socket
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 53))
            while True:
                s.recv(4096)
            """]))
        children.append(try spawn(["python3", "-m", "http.server", "--bind", "127.0.0.1", "18080"]))
        try waitUntil { try self.probe(["http://127.0.0.1:18080/", "--timeout", "1s"]).status == 0 }
    }

    override func tearDown() {
        for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
        children = []
        guard !namespace.isEmpty else { return }
        _ = try? ip(["netns", "delete", namespace])
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(namespace)")
    }

    func testResolveIsBoundedByTheProbeTimeout() throws {
        let start = Date()
        let result = try probe(["http://silent.invalid/", "--timeout", "1s", "--json"])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(result.status, 1, result.stderr)
        let object = try json(result.stdout)
        let error = object["error"] as? [String: Any]
        XCTAssertEqual(error?["kind"] as? String, "timeout", result.stdout)
        XCTAssertEqual(error?["phase"] as? String, "resolve", result.stdout)
        XCTAssertGreaterThan((object["timings_ms"] as? [String: Any])?["resolve"] as? Double ?? 0, 900)
        // The resolver alone would wait 5 s × 2 attempts; the probe ends at its 1 s timeout (plus process start-up).
        XCTAssertLessThan(elapsed, 3, "the probe must end at its timeout, not the resolver's")
    }

    func testPreferredFamilyFallsBackToTheOtherFamily() throws {
        let preferSix = try probe(["http://dual.test:18080/", "--prefer-ip6", "--json"])
        XCTAssertEqual(preferSix.status, 0, preferSix.stdout + preferSix.stderr)
        XCTAssertEqual(try json(preferSix.stdout)["resolved_address"] as? String, "127.0.0.1",
                       "::1 refuses, so the probe falls back to 127.0.0.1")

        let preferFour = try probe(["http://dual.test:18080/", "--prefer-ip4", "--json"])
        XCTAssertEqual(preferFour.status, 0, preferFour.stderr)
        XCTAssertEqual(try json(preferFour.stdout)["resolved_address"] as? String, "127.0.0.1")

        let onlySix = try probe(["http://dual.test:18080/", "--ip6", "--json"])
        XCTAssertEqual(onlySix.status, 1)
        let error = try json(onlySix.stdout)["error"] as? [String: Any]
        XCTAssertEqual(error?["kind"] as? String, "connectRefused", onlySix.stdout)
        XCTAssertEqual(try json(onlySix.stdout)["resolved_address"] as? String, "::1")

        let both = try probe(["http://dual.test:18080/", "--ip4", "--prefer-ip6"])
        XCTAssertEqual(both.status, 64)
        XCTAssertEqual(both.stderr.split(separator: "\n").count, 1, both.stderr)
    }

    // MARK: Helpers

    private func probe(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["netns", "exec", namespace, ProcessRunner.binary.path, "probe"] + arguments,
                              executable: URL(fileURLWithPath: "/usr/sbin/ip"))
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func ip(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/sbin/ip"))
        guard result.status == 0 else { throw TestSetupError("ip \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    private func spawn(_ command: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace] + command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func waitUntil(timeout: TimeInterval = 10, _ condition: () throws -> Bool) throws {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if try condition() { return }
            usleep(100_000)
        }
        throw TestSetupError("the namespace's servers did not start within \(timeout) s")
    }
}
