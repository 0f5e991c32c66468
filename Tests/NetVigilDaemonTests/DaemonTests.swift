import Foundation
import Logging
import NetVigilAgent
import NetVigilDaemon
import NetVigilStore
import NetVigilTestSupport
import ServiceLifecycle
import XCTest

/// The daemon in process: built from a configuration, reloaded, stopped, a failing service, health, and the typed
/// errors of a start that cannot happen. `netvigil run` is this plus options, logging and the shutdown deadline.
final class DaemonTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var feedPort = 0

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        feedPort = ProcessRunner.freePort()
    }

    /// The configuration file with `targets` (name, URL) and writes it; returns its path.
    private func writeConfiguration(_ targets: [(String, String)], timeout: String = "2s") throws -> String {
        let lines = targets.map { "  - { name: \($0.0), url: \"\($0.1)\", interval: 1s, timeout: \(timeout), alerts: [] }" }
        return try directory.write("netvigil.yml", """
            storage: { path: \(directory.path("n.sqlite")) }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
            \(lines.joined(separator: "\n"))
            """)
    }

    private func makeDaemon(_ path: String, extraServices: [any Service] = []) async throws -> Daemon {
        let configuration = try AgentConfiguration.load(path: path)
        return try await Daemon(configuration: configuration, path: path, descriptorLimit: 1_024,
                                logger: Logger(label: "test"), extraServices: extraServices)
    }

    private func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("timed out waiting for \(what)")
    }

    /// The stored probe rows of `target`, as the export writes them.
    private func probes(_ daemon: Daemon, _ target: String) throws -> [[String: Any]] {
        let page = try HistoryExporter(store: daemon.store, version: "test")
            .page(ExportQuery(targets: [target], kinds: [.probes]), after: nil, limit: 1_000)
        return page.items.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    func testReloadAppliesTheFileAndShutdownReturnsWithEverythingStored() async throws {
        let closed = "http://127.0.0.1:\(ProcessRunner.freePort())/"
        let path = try writeConfiguration([("a", closed)])
        let daemon = try await makeDaemon(path)
        let running = Task { try await daemon.run() }
        XCTAssertEqual(daemon.healthReport().problems, [], "healthy at start")
        XCTAssertEqual(daemon.scheduler.targetNames, ["a"])

        _ = try writeConfiguration([("a", closed), ("b", closed)])
        let summary = await daemon.reload()
        XCTAssertEqual(summary?.added, ["b"])
        XCTAssertEqual(daemon.scheduler.targetNames.sorted(), ["a", "b"])
        try "targets: [ { name: broken } ]\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = await daemon.reload()
        XCTAssertNil(refused, "a refused file keeps the running configuration")
        XCTAssertEqual(daemon.scheduler.targetNames.sorted(), ["a", "b"])

        try await waitUntil("a probe of each target") {
            try !self.probes(daemon, "a").isEmpty && !self.probes(daemon, "b").isEmpty
        }
        await daemon.shutdown()
        try await running.value
        XCTAssertEqual(daemon.writer.health.queuedRows, 0, "the writer flushed before it stopped")
    }

    /// A probe in flight on a server that accepts and never answers is cancelled at the stop and stored as such.
    func testShutdownCancelsAProbeInFlightAndStoresItAsCancelled() async throws {
        let silent = try LoopbackListener()
        defer { silent.close() }
        let daemon = try await makeDaemon(try writeConfiguration([("silent", "http://127.0.0.1:\(silent.port)/")], timeout: "50s"))
        let running = Task { try await daemon.run() }
        try await Task.sleep(for: .seconds(2))  // the first tick falls within the 1 s interval
        let started = ContinuousClock.now
        await daemon.shutdown()
        try await running.value
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "the stop did not wait for the 50 s timeout")
        let rows = try probes(daemon, "silent")
        XCTAssertFalse(rows.isEmpty)
        for row in rows {
            XCTAssertEqual(row["outcome"] as? String, "skipped", "\(row)")
            XCTAssertEqual((row["error"] as? [String: Any])?["kind"] as? String, "cancelled", "\(row)")
        }
    }

    /// A service that fails stops the others gracefully (the writer flushes) and `run()` throws its error.
    func testAFailingServiceStopsTheDaemon() async throws {
        struct Broken: Error {}
        struct FailingService: Service {
            func run() async throws {
                try await Task.sleep(for: .milliseconds(300))
                throw Broken()
            }
        }
        let daemon = try await makeDaemon(try writeConfiguration([]), extraServices: [FailingService()])
        do {
            try await daemon.run()
            XCTFail("run() returned although a service failed")
        } catch {
            XCTAssertTrue("\(error)".contains("Broken"), "\(error)")
        }
        XCTAssertEqual(daemon.writer.health.queuedRows, 0)
    }

    func testAFeedAddressInUseIsATypedErrorBeforeAnythingStarts() async throws {
        let holder = try LoopbackListener()
        defer { holder.close() }
        feedPort = holder.port
        do {
            _ = try await makeDaemon(try writeConfiguration([]))
            XCTFail("the daemon was built on a port in use")
        } catch let error as DaemonError {
            guard case .feedUnavailable(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("address already in use"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("n.sqlite")), "no store was created")
    }

    func testAStoreThatCannotBeOpenedIsATypedError() async throws {
        let path = try directory.write("netvigil.yml", """
            storage: { path: /proc/netvigil/n.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            """)
        do {
            _ = try await makeDaemon(path)
            XCTFail("the daemon was built without a store")
        } catch let error as DaemonError {
            guard case .store(let store) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(store.kind, .io)
        }
    }
}

extension DaemonTests {
    /// `feed.health_listen`: liveness stays answerable while every connection the feed allows is taken by idle
    /// clients (the feed then leaves new connections in the kernel's accept queue).
    func testTheHealthListenerAnswersWhileTheFeedIsFull() async throws {
        let healthPort = ProcessRunner.freePort()
        let path = try directory.write("netvigil.yml", """
            storage: { path: \(directory.path("n.sqlite")) }
            feed: { listen: 127.0.0.1:\(feedPort), max_connections: 8, max_event_subscribers: 4, idle_timeout: 60s,
                    health_listen: 127.0.0.1:\(healthPort) }
            """)
        let daemon = try await makeDaemon(path)
        let running = Task { try await daemon.run() }
        defer { running.cancel() }
        try await waitUntil("the health listener") { Self.get(port: healthPort, timeout: 1) == 200 }
        // Eight idle connections take the feed's cap (each sends half a request head and waits).
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<8 { idle.append(try Self.connectAndSendPartialHead(port: feedPort)) }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertNil(Self.get(port: feedPort, timeout: 2), "the feed answered beyond its connection cap")
        XCTAssertEqual(Self.get(port: healthPort, timeout: 2), 200, "liveness must stay answerable")
        await daemon.shutdown()
        try await running.value
    }

    func testAHealthListenerEqualToTheFeedIsRefused() throws {
        let yaml = "feed: { listen: 127.0.0.1:9337, health_listen: 127.0.0.1:9337 }\n"
        XCTAssertThrowsError(try AgentConfiguration(yaml: yaml, file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("health_listen must differ from listen"), "\(error)")
        }
    }

    /// The status of `GET /healthz` on 127.0.0.1:`port`, nil without an answer within `timeout` seconds.
    static func get(port: Int, timeout: Int) -> Int? {
        guard let socket = try? connectAndSendPartialHead(port: port, complete: true) else { return nil }
        defer { close(socket) }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(socket, &buffer, buffer.count)
        guard count > 12 else { return nil }
        return Int(String(decoding: buffer[9..<12], as: UTF8.self))
    }

    /// A connected socket to 127.0.0.1:`port` that sent a request head for `/healthz`, whole or cut short.
    static func connectAndSendPartialHead(port: Int, complete: Bool = false) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        let head = complete ? "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" : "GET /healthz HTTP/1.1\r\n"
        _ = head.withCString { write(fd, $0, strlen($0)) }
        return fd
    }
}
