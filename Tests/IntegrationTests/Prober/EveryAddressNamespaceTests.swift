import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe --all-addresses` through the real getaddrinfo: inside a network namespace whose hosts file gives
/// `edge.test` two addresses, one serving and one refusing.
final class EveryAddressNamespaceTests: XCTestCase {
    private var namespace: NetworkNamespace!
    private var server: Process?

    override func setUpWithError() throws {
        namespace = try NetworkNamespace(for: self)
        try namespace.writeEtcFile("hosts", "127.0.0.1 edge.test\n127.0.0.2 edge.test\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace.name, "python3", "-m", "http.server", "--bind", "127.0.0.1", "18080"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        let end = Date().addingTimeInterval(10)
        while try probe(["http://127.0.0.1:18080/", "--timeout", "1s"]).status != 0 {
            guard Date() < end else { throw TestSetupError("python3 http.server did not start in the namespace") }
            usleep(100_000)
        }
    }

    override func tearDown() {
        if let server, server.isRunning { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        namespace?.remove()
    }

    private func probe(_ arguments: [String]) throws -> ProcessRunner.Result {
        try namespace.exec([ProcessRunner.binary.path, "probe"] + arguments, check: false)
    }

    func testEveryResolvedAddressIsProbedAndTheDownOneIsNamed() throws {
        let all = try probe(["http://edge.test:18080/", "--all-addresses", "--json"])
        XCTAssertEqual(all.status, 1, all.stderr)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]], all.stdout)
        XCTAssertEqual(rows.map { $0["resolved_address"] as? String }, ["127.0.0.1", "127.0.0.2"])
        XCTAssertEqual(rows.map { $0["outcome"] as? String }, ["ok", "failed"])
        XCTAssertEqual((rows[1]["error"] as? [String: Any])?["kind"] as? String, "connectRefused")

        // addresses: first (no flag) is today's behaviour: the first address answers, the probe passes.
        let first = try probe(["http://edge.test:18080/", "--json"])
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
    }
}
