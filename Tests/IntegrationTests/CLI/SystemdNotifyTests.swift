import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil run` under a fake service manager: the test binds the notification socket systemd would, runs the real
/// daemon with `NOTIFY_SOCKET` / `WATCHDOG_USEC`, and reads the datagrams it sends.
final class SystemdNotifyTests: XCTestCase {
    private func startDaemon(in directory: TemporaryDirectory, port: Int, environment extra: [String: String]) throws
        -> (Process, String) {
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite, retention: 1d }
            feed: { listen: 127.0.0.1:\(port) }
            reachability: { targets: [127.0.0.1] }
            """)
        // Only what the test sets: never a NOTIFY_SOCKET inherited from a service manager running the tests.
        var environment = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { environment[key] = nil }
        let (process, log) = try DaemonProcess.start(config: config, in: directory,
                                                     environment: environment.merging(extra) { _, new in new })
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        return (process, log)
    }

    private func waitForExit(_ process: Process, timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    }

    private func logText(_ log: String) -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func testPathSocketGetsReadyStatusWatchdogAndStopping() throws {
        let directory = try TemporaryDirectory()
        let listener = try DatagramListener(path: directory.path("notify.sock"))
        let port = ProcessRunner.freePort()
        let (process, log) = try startDaemon(in: directory, port: port,
                                             environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "400000"])

        let ready = listener.receive(until: { $0.contains("READY=1") }, timeout: 30)
        XCTAssertTrue(ready.matched, "no READY=1; got \(ready.received); log:\n\(logText(log))")
        let readyDatagram = try XCTUnwrap(ready.received.last)
        XCTAssertTrue(readyDatagram.contains("STATUS=ready: feed on 127.0.0.1:\(port), reachability watcher up\n"), readyDatagram)
        // READY=1 means the feed already answers and the store is writable.
        let (health, body) = try ProcessRunner.curl("http://127.0.0.1:\(port)/healthz")
        XCTAssertEqual(health, 200, body)
        XCTAssertTrue(ready.received.dropLast().allSatisfy { $0 == "WATCHDOG=1\n" }, "only pings before READY: \(ready.received)")

        // WATCHDOG_USEC=400000: a ping about every 200 ms.
        let start = Date()
        var pings = 0
        while Date().timeIntervalSince(start) < 1.1, let datagram = listener.receive(timeout: 0.5) {
            if datagram == "WATCHDOG=1\n" { pings += 1 }
        }
        XCTAssertTrue((4...7).contains(pings), "\(pings) pings in 1.1 s at a 200 ms interval")

        kill(process.processIdentifier, SIGTERM)
        let stopping = listener.receive(until: { $0.contains("STOPPING=1") }, timeout: 5)
        XCTAssertTrue(stopping.matched, "no STOPPING=1 after SIGTERM; got \(stopping.received)")
        XCTAssertEqual(stopping.received.last, "STOPPING=1\nSTATUS=stopping\n")
        waitForExit(process)
        XCTAssertFalse(process.isRunning)
        XCTAssertEqual(process.terminationStatus, 0, logText(log))
        XCTAssertTrue(logText(log).contains("systemd notified: ready"), logText(log))
    }

    func testAbstractSocketAndForeignWatchdogPid() throws {
        let directory = try TemporaryDirectory()
        let listener = try DatagramListener()
        XCTAssertTrue(listener.address.hasPrefix("@"))
        let port = ProcessRunner.freePort()
        // WATCHDOG_PID names another process (pid 1): the watchdog is not ours, so no pings.
        let (process, log) = try startDaemon(in: directory, port: port, environment: [
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1",
        ])
        let ready = listener.receive(until: { $0.contains("READY=1") }, timeout: 30)
        XCTAssertTrue(ready.matched, "no READY=1; got \(ready.received); log:\n\(logText(log))")
        XCTAssertNil(listener.receive(timeout: 0.6), "no WATCHDOG=1 for a foreign WATCHDOG_PID")
        kill(process.processIdentifier, SIGTERM)
        XCTAssertEqual(listener.receive(timeout: 5), "STOPPING=1\nSTATUS=stopping\n")
        waitForExit(process)
        XCTAssertEqual(process.terminationStatus, 0, logText(log))
        XCTAssertFalse(ready.received.contains("WATCHDOG=1\n"), "\(ready.received)")
    }

    func testWithoutNotifySocketNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let (process, log) = try startDaemon(in: directory, port: port, environment: ["WATCHDOG_USEC": "100000"])
        let deadline = Date().addingTimeInterval(30)
        var healthy = false
        while !healthy && Date() < deadline && process.isRunning {
            healthy = (try? ProcessRunner.curl("http://127.0.0.1:\(port)/healthz").0) == 200
            if !healthy { Thread.sleep(forTimeInterval: 0.1) }
        }
        XCTAssertTrue(healthy, logText(log))
        kill(process.processIdentifier, SIGTERM)
        waitForExit(process)
        XCTAssertEqual(process.terminationStatus, 0, logText(log))
        XCTAssertFalse(logText(log).contains("systemd"), logText(log))
    }

    func testInvalidNotifySocketIsLoggedAndTheDaemonStillRuns() throws {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let (process, log) = try startDaemon(in: directory, port: port, environment: ["NOTIFY_SOCKET": "not-a-socket"])
        let deadline = Date().addingTimeInterval(30)
        var healthy = false
        while !healthy && Date() < deadline && process.isRunning {
            healthy = (try? ProcessRunner.curl("http://127.0.0.1:\(port)/healthz").0) == 200
            if !healthy { Thread.sleep(forTimeInterval: 0.1) }
        }
        XCTAssertTrue(healthy, logText(log))
        XCTAssertTrue(logText(log).contains("NOTIFY_SOCKET=not-a-socket: expected an absolute socket path or an @abstract name"),
                      logText(log))
        kill(process.processIdentifier, SIGTERM)
        waitForExit(process)
        XCTAssertEqual(process.terminationStatus, 0, logText(log))
    }
}

/// A real `AF_UNIX` datagram socket in the role of systemd's notification socket (file path or abstract `@name`).
private final class DatagramListener {
    let address: String
    private let descriptor: Int32
    private let path: String?

    init(path: String? = nil) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let name = path ?? "netvigil-cli-test-\(UUID().uuidString)"
        let bytes = path != nil ? Array(name.utf8) + [0] : [0] + Array(name.utf8)
        address = path ?? "@" + name
        self.path = path
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2) + bytes.count)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
    }

    /// The next datagram, or `nil` after `timeout` seconds.
    func receive(timeout: TimeInterval) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(0, timeout) * 1_000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count >= 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    /// Datagrams up to and including the first matching `predicate` (or all received before `timeout`).
    func receive(until predicate: (String) -> Bool, timeout: TimeInterval) -> (matched: Bool, received: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [String] = []
        while let datagram = receive(timeout: deadline.timeIntervalSinceNow) {
            received.append(datagram)
            if predicate(datagram) { return (true, received) }
        }
        return (false, received)
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }
}
