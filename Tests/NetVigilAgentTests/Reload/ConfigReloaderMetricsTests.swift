import Foundation
import Metrics
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilAgent

/// A SIGHUP reload sets `netvigil_config_last_reload_successful` and, on success, its timestamp; one that runs past its
/// bound is logged, exported as `netvigil_config_reload_running_seconds` and makes the daemon unhealthy.
final class ConfigReloaderMetricsTests: XCTestCase {
    /// The last value of each unlabelled gauge, by name.
    private final class GaugeFactory: MetricsFactory, Sendable {
        final class Handler: RecorderHandler, Sendable {
            let value = Mutex<Double?>(nil)
            func record(_ value: Int64) { record(Double(value)) }
            func record(_ value: Double) { self.value.withLock { $0 = value } }
        }

        private let gauges = Mutex<[String: Handler]>([:])
        private let base = NOOPMetricsHandler.instance

        func value(_ name: String) -> Double? { gauges.withLock { $0[name] }?.value.withLock { $0 } }

        func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
            gauges.withLock { gauges in
                if let handler = gauges[label] { return handler }
                let handler = Handler()
                gauges[label] = handler
                return handler
            }
        }
        func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { base }
        func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { base }
        func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { base }
        func destroyCounter(_ handler: any CounterHandler) {}
        func destroyRecorder(_ handler: any RecorderHandler) {}
        func destroyTimer(_ handler: any TimerHandler) {}
    }

    func testRefusedAndAcceptedReloadsAreCounted() async throws {
        let factory = GaugeFactory()
        let metrics = AgentMetrics(factory: factory)
        let successful = AgentMetrics.Name.configLastReloadSuccessful
        let timestamp = AgentMetrics.Name.configLastReloadSuccessTimestamp
        XCTAssertEqual(factory.value(successful), 1)
        let started = try XCTUnwrap(factory.value(timestamp))

        let directory = try TemporaryDirectory()
        let path = directory.path("netvigil.yml")
        try "storage: { retension: 30d }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let reloader = ConfigReloader(path: path, logger: LogRecorder().logger(), metrics: metrics) { _ in
            .init(added: [], changed: [], removed: [], needsRestart: [])
        }
        let refused = await reloader.reload()
        XCTAssertNil(refused)
        XCTAssertEqual(factory.value(successful), 0)
        XCTAssertEqual(factory.value(timestamp), started)

        try await Task.sleep(for: .milliseconds(20))
        try "labels: { site: fra1 }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let applied = await reloader.reload()
        XCTAssertNotNil(applied)
        XCTAssertEqual(factory.value(successful), 1)
        XCTAssertGreaterThan(try XCTUnwrap(factory.value(timestamp)), started)
    }

    func testAReloadPastItsBoundIsLoggedExportedAndUnhealthy() async throws {
        let factory = GaugeFactory()
        let metrics = AgentMetrics(factory: factory)
        let progress = ReloadProgress(stuckAfter: .milliseconds(200))
        let health = DaemonHealth(scheduler: nil, writer: nil, metrics: metrics, reload: progress)
        let log = LogRecorder()
        let directory = try TemporaryDirectory()
        let path = directory.path("netvigil.yml")
        try "labels: { site: fra1 }\n".write(toFile: path, atomically: true, encoding: .utf8)
        // The apply step waits for the test: the reload runs as long as the test wants.
        let (gate, release) = AsyncStream<Void>.makeStream()
        let reloader = ConfigReloader(path: path, logger: log.logger(), metrics: metrics, progress: progress) { _ in
            for await _ in gate { break }
            return .init(added: [], changed: [], removed: [], needsRestart: [])
        }
        XCTAssertEqual(health.check().problems, [])
        let reload = Task { await reloader.reload() }
        var problems: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            problems = health.check().problems
            if !problems.isEmpty, log.all.contains(where: { $0.level == .error }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.hasPrefix("configuration reload stuck: it has run for ") ?? false, "\(problems)")
        XCTAssertGreaterThan(try XCTUnwrap(factory.value(AgentMetrics.Name.configReloadRunning)), 0.2)
        XCTAssertEqual(factory.value(AgentMetrics.Name.healthy), 0)
        XCTAssertEqual(log.all.filter { $0.level == .error }.map(\.message), ["configuration reload still running; later SIGHUPs wait for it"])

        release.yield()
        let applied = await reload.value
        XCTAssertNotNil(applied)
        XCTAssertEqual(health.check().problems, [])
        XCTAssertEqual(factory.value(AgentMetrics.Name.configReloadRunning), 0)
        XCTAssertEqual(factory.value(AgentMetrics.Name.healthy), 1)
    }
}
