import Foundation
import Logging
import NetVigilAgent
import NetVigilTestSupport
import ServiceLifecycle
import Synchronization
import XCTest

/// The notify service inside a real `ServiceGroup`: readiness gating, watchdog pings, STOPPING=1 on shutdown.
final class SystemdNotifyServiceTests: XCTestCase {
    private let logger = Logger(label: "test.systemd")

    /// A flag the test flips to bring the "watcher" up.
    private final class WatcherFlag: Sendable {
        let up = Atomic<Bool>(false)
    }

    private func runGroup(_ service: SystemdNotifyService, _ body: @Sendable () async throws -> Void) async throws {
        let group = ServiceGroup(services: [service], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    func testReadyWaitsForFeedAndWatcherThenWatchdogAndStopping() async throws {
        let listener = try NotifySocketListener()
        let flag = WatcherFlag()
        let service = SystemdNotifyService(
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000"],
            logger: logger, watcherIsUp: { flag.up.load(ordering: .relaxed) })
        XCTAssertTrue(service.isEnabled)
        try await runGroup(service) {
            // Watchdog pings start at once, before readiness.
            let firstPing = await listener.receive(timeout: 2)
            XCTAssertEqual(firstPing, "WATCHDOG=1\n")
            service.feedIsListening(at: "127.0.0.1:1234")
            // Feed up, watcher not yet: no READY.
            let early = await listener.receive(until: { $0.contains("READY=1") }, timeout: 0.5)
            XCTAssertFalse(early.matched, "\(early.received)")
            XCTAssertTrue(early.received.allSatisfy { $0 == "WATCHDOG=1\n" }, "\(early.received)")
            flag.up.store(true, ordering: .relaxed)
            let ready = await listener.receive(until: { $0.contains("READY=1") }, timeout: 2)
            XCTAssertTrue(ready.matched, "\(ready.received)")
            XCTAssertEqual(ready.received.last, "READY=1\nSTATUS=ready: feed on 127.0.0.1:1234, reachability watcher up\n")
            // Pings continue at half the 200 ms timeout.
            let start = Date()
            var pings = 0
            while Date().timeIntervalSince(start) < 0.55, let datagram = await listener.receive(timeout: 0.3) {
                if datagram == "WATCHDOG=1\n" { pings += 1 }
            }
            XCTAssertGreaterThanOrEqual(pings, 3, "about one ping per 100 ms")
            await service.update(status: "3 targets, 0 alerts firing")
            let status = await listener.receive(until: { $0.hasPrefix("STATUS=") }, timeout: 2)
            XCTAssertEqual(status.received.last, "STATUS=3 targets, 0 alerts firing\n")
        }
        let stopping = await listener.receive(until: { $0.contains("STOPPING=1") }, timeout: 2)
        XCTAssertEqual(stopping.received.last, "STOPPING=1\nSTATUS=stopping\n")
    }

    func testWatcherThatNeverComesUpStillReportsReadyWithAReason() async throws {
        let listener = try NotifySocketListener()
        let service = SystemdNotifyService(environment: ["NOTIFY_SOCKET": listener.address], logger: logger,
                                           readinessTimeout: .milliseconds(300), watcherIsUp: { false })
        try await runGroup(service) {
            service.feedIsListening(at: "[::1]:9337")
            let ready = await listener.receive(until: { $0.contains("READY=1") }, timeout: 3)
            XCTAssertTrue(ready.matched, "\(ready.received)")
            XCTAssertTrue(ready.received.last?.contains("reachability watcher unavailable") == true, "\(ready.received)")
            XCTAssertFalse(ready.received.contains("WATCHDOG=1\n"), "no WATCHDOG_USEC, no pings")
        }
        let stopping = await listener.receive(timeout: 2)
        XCTAssertEqual(stopping, "STOPPING=1\nSTATUS=stopping\n")
    }

    func testWithoutNotifySocketItOnlyWaitsForShutdown() async throws {
        let service = SystemdNotifyService(environment: ["WATCHDOG_USEC": "100000"], logger: logger, watcherIsUp: { true })
        XCTAssertFalse(service.isEnabled)
        try await runGroup(service) {
            service.feedIsListening(at: "127.0.0.1:1")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func testForeignWatchdogPidDisablesPings() async throws {
        let listener = try NotifySocketListener()
        let service = SystemdNotifyService(
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "\(getpid() + 1)"],
            logger: logger, watcherIsUp: { true })
        try await runGroup(service) {
            let ping = await listener.receive(timeout: 0.4)
            XCTAssertNil(ping, "WATCHDOG_PID names another process: no pings")
        }
        let stopping = await listener.receive(timeout: 2)
        XCTAssertEqual(stopping, "STOPPING=1\nSTATUS=stopping\n")
    }

    func testNoWatchdogPingWhileUnhealthy() async throws {
        let listener = try NotifySocketListener()
        let flag = WatcherFlag()
        let service = SystemdNotifyService(
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000"],
            logger: logger, watcherIsUp: { true },
            health: { DaemonHealth.Report(problems: flag.up.load(ordering: .relaxed) ? [] : ["store not writable: disk full"]) })
        try await runGroup(service) {
            let withheld = await listener.receive(until: { $0.contains("WATCHDOG=1") }, timeout: 0.6)
            XCTAssertFalse(withheld.matched, "no ping while unhealthy: \(withheld.received)")
            XCTAssertTrue(withheld.received.contains("STATUS=unhealthy: store not writable: disk full\n"), "\(withheld.received)")
            flag.up.store(true, ordering: .relaxed)
            let resumed = await listener.receive(until: { $0.contains("WATCHDOG=1") }, timeout: 2)
            XCTAssertTrue(resumed.matched, "\(resumed.received)")
            XCTAssertEqual(resumed.received.last, "WATCHDOG=1\nSTATUS=healthy again\n")
        }
    }
}
