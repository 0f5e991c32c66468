import Foundation
import Logging
import NetVigilReachability
import NetVigilStore
import NetVigilTestSupport
import ServiceLifecycleTestKit
import XCTest
@testable import NetVigilAgent

/// Services stop when the group stops them, also when the stop comes while they are still starting: a daemon
/// whose feed port turns out busy stops its other services a few milliseconds after they began.
final class ServiceStopTests: XCTestCase {
    func testTheRecorderStopsWhenGracefulShutdownComesWhileTheWatcherStarts() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let writerTask = Task { try await writer.run() }
        defer { writer.close() }
        // Graceful shutdown at 0 to 5 ms after the service began: some of these land while netlink is being dumped.
        for step in 0..<20 {
            let monitor = ReachabilityMonitor(targets: [.default])
            let recorder = ReachabilityRecorder(monitor: monitor, writer: writer, logger: Logger(label: "test"))
            let stopped = await testGracefulShutdown { trigger in
                await Self.stopsInTime(trigger: trigger, after: .microseconds(250 * step)) { try? await recorder.run() }
            }
            XCTAssertTrue(stopped, "shutdown \(250 * step) µs after start: the recorder did not stop within 3 s")
            let running = await monitor.isRunning
            XCTAssertFalse(running, "the watcher thread must be stopped too")
        }
        writer.close()
        _ = try await writerTask.value
    }

    func testTheReloaderStopsOnGracefulShutdownAndOnCancellation() async {
        let reloader = ConfigReloader(path: nil, logger: Logger(label: "test")) { _ in
            .init(added: [], changed: [], removed: [], needsRestart: [])
        }
        for step in 0..<10 {
            let stopped = await testGracefulShutdown { trigger in
                await Self.stopsInTime(trigger: trigger, after: .microseconds(250 * step)) { try? await reloader.run() }
            }
            XCTAssertTrue(stopped, "graceful shutdown \(250 * step) µs after start: the reloader did not stop within 3 s")
        }
        let task = Task { _ = try? await reloader.run() }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let cancelled = await Self.finishes(task, within: .seconds(3))
        XCTAssertTrue(cancelled, "a cancelled reloader must return")
    }

    /// Runs `service`, triggers graceful shutdown after `delay`, and says whether the service returned within 3 s.
    private static func stopsInTime(trigger: GracefulShutdownTestTrigger, after delay: Duration,
                                    _ service: @escaping @Sendable () async -> Void) async -> Bool {
        let task = Task { await service() }
        try? await Task.sleep(for: delay)
        trigger.triggerGracefulShutdown()
        return await finishes(task, within: .seconds(3))
    }

    /// Whether `task` returns within `limit`; if not, it is cancelled so the test can go on.
    private static func finishes(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await task.value; return true }
            group.addTask { try? await Task.sleep(for: limit); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            if !first { task.cancel() }
            await group.waitForAll()
            return first
        }
    }
}
