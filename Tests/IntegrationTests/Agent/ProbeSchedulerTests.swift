import Foundation
import Logging
import NetVigilProber
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

final class ProbeSchedulerTests: XCTestCase {
    private var harness: PipelineHarness!
    private var server: SlowHTTPServer { harness.server }
    private var store: Store { harness.store }
    private var writer: StoreWriter { harness.writer }

    override func setUpWithError() throws {
        harness = try PipelineHarness()
    }

    override func tearDown() {
        harness?.close()
    }

    private func targets(_ entries: [(name: String, interval: String, delayMs: Int)]) throws -> [ProbeTarget] {
        let yaml = "targets:\n" + entries.map { entry in
            "  - { name: \(entry.name), url: \"http://127.0.0.1:\(server.port)/slow/\(entry.name)?ms=\(entry.delayMs)\", interval: \(entry.interval), timeout: 5s }"
        }.joined(separator: "\n")
        return try AgentConfiguration(yaml: yaml, file: "test.yml").targets.targets
    }

    private func makeScheduler(_ targets: [ProbeTarget], concurrency: Int, events: EventHub = EventHub(),
                               states: TargetStates = TargetStates()) -> ProbeScheduler {
        let pipeline = ProbePipeline(prober: Prober(), writer: writer, states: states, events: events,
                                     logger: Logger(label: "test"))
        return ProbeScheduler(targets: targets, concurrency: concurrency, pipeline: pipeline, logger: Logger(label: "test"),
                              maximumSpread: .milliseconds(100))
    }

    private func run(_ scheduler: ProbeScheduler, for seconds: Double) async throws {
        let task = Task { try await scheduler.run() }
        try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
        scheduler.shutdown()
        try await task.value
    }

    private func storedCount(_ target: String) async throws -> Int {
        let page = try HistoryExporter(store: store, version: "test").page(ExportQuery(targets: [target], kinds: [.probes]), after: nil, limit: 1_000)
        return page.items.count
    }

    func testEachTargetRunsOnItsOwnIntervalAndResultsAreStored() async throws {
        let states = TargetStates()
        let events = EventHub()
        let stream = try events.subscribe()
        let scheduler = makeScheduler(try targets([("fast", "300ms", 0), ("slow", "1s", 0)]), concurrency: 4,
                                      events: events, states: states)
        try await run(scheduler, for: 2.2)
        let stats = try server.stats()
        let fast = stats["fast"]?["requests"] ?? 0
        let slow = stats["slow"]?["requests"] ?? 0
        XCTAssertTrue((6...8).contains(fast), "fast target probed \(fast) times in 2.2 s at 300 ms")
        XCTAssertTrue((2...3).contains(slow), "slow target probed \(slow) times in 2.2 s at 1 s")
        try await writer.write(WriteBatch())
        let storedFast = try await storedCount("fast")
        XCTAssertEqual(storedFast, fast, "every probe result is stored")
        let snapshot = try XCTUnwrap(states.snapshot("fast"))
        XCTAssertEqual(snapshot.status, .up)
        XCTAssertEqual(snapshot.lastResult?.httpStatus, 200)
        XCTAssertEqual(snapshot.uptime.lastHour, 1.0)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        guard case .probe(let record)? = first?.event else { return XCTFail("expected a probe event, got \(String(describing: first))") }
        XCTAssertEqual(record.outcome, .ok)
    }

    /// The daemon keeps the start latenesses `/metrics` reads and no more: a larger ring grew an idle daemon's heap for
    /// hours.
    func testLatenessSamplesAreBoundedByTheMetricsWindow() throws {
        let scheduler = makeScheduler(try targets([("a", "1s", 0)]), concurrency: 1)
        XCTAssertEqual(scheduler.statistics.capacity, AgentMetrics.latenessWindow)
        // The ring's storage is there from the start: filling it never reallocates (an idle daemon's heap stays flat).
        let reserved = scheduler.statistics.reservedSampleCount
        XCTAssertGreaterThanOrEqual(reserved, AgentMetrics.latenessWindow)
        for _ in 0..<(AgentMetrics.latenessWindow + 500) { scheduler.statistics.probeStarted(latenessSeconds: 0.001) }
        XCTAssertEqual(scheduler.statistics.probesStarted, AgentMetrics.latenessWindow + 500)
        XCTAssertEqual(scheduler.statistics.storedSampleCount, AgentMetrics.latenessWindow)
        XCTAssertEqual(scheduler.statistics.reservedSampleCount, reserved)
    }

    func testGlobalConcurrencyIsBounded() async throws {
        let list = try targets((0..<8).map { ("t\($0)", "200ms", 400) })
        let scheduler = makeScheduler(list, concurrency: 3)
        try await run(scheduler, for: 2.0)
        let stats = try server.stats()
        XCTAssertEqual(stats["_all"]?["max_inflight"], 3, "at most 3 probes in flight: \(stats)")
    }

    func testLateTicksAreSkippedAndATargetNeverOverlapsItself() async throws {
        let scheduler = makeScheduler(try targets([("busy", "200ms", 700)]), concurrency: 4)
        try await run(scheduler, for: 2.3)
        let stats = try server.stats()
        XCTAssertEqual(stats["busy"]?["max_inflight"], 1)
        let requests = stats["busy"]?["requests"] ?? 0
        XCTAssertTrue((2...4).contains(requests), "a 700 ms probe every 200 ms runs back to back, got \(requests)")
        XCTAssertGreaterThan(scheduler.statistics.skippedTicks, 3, "missed ticks are skipped, not queued")
    }

    func testReloadAddsChangesAndRemovesTargetsKeepingState() async throws {
        let states = TargetStates()
        let scheduler = makeScheduler(try targets([("keep", "200ms", 0), ("drop", "200ms", 0)]), concurrency: 4, states: states)
        let task = Task { try await scheduler.run() }
        try await Task.sleep(for: .milliseconds(700))
        let change = await scheduler.update(targets: try targets([("keep", "200ms", 0), ("new", "200ms", 0)]))
        XCTAssertEqual(change.added, ["new"])
        XCTAssertEqual(change.removed, ["drop"])
        XCTAssertEqual(change.changed, [])
        let dropCount = try server.stats()["drop"]?["requests"] ?? 0
        try await Task.sleep(for: .milliseconds(800))
        scheduler.shutdown()
        try await task.value
        let stats = try server.stats()
        XCTAssertLessThanOrEqual(stats["drop"]?["requests"] ?? 0, dropCount + 1, "a removed target stops")
        XCTAssertGreaterThan(stats["new"]?["requests"] ?? 0, 1)
        XCTAssertEqual(states.names, ["keep", "new"])
        XCTAssertGreaterThan(states.snapshot("keep")?.uptime.lastHour ?? 0, 0, "kept targets keep their state")
    }

    func testAReloadedTargetWithTheSameIntervalKeepsItsNextTick() async throws {
        let scheduler = makeScheduler(try targets([("phase", "2s", 0)]), concurrency: 4)
        let task = Task { try await scheduler.run() }
        try await Task.sleep(for: .milliseconds(500))
        XCTAssertEqual(try server.stats()["phase"]?["requests"], 1, "first tick within the 100 ms spread")
        // A changed URL restarts the target's runner; its next tick stays where it was (2 s after the first).
        let change = await scheduler.update(targets: try targets([("phase", "2s", 1)]))
        XCTAssertEqual(change.changed, ["phase"])
        try await Task.sleep(for: .milliseconds(800))
        XCTAssertEqual(try server.stats()["phase"]?["requests"], 1, "a reload neither probes at once nor moves the phase")
        try await Task.sleep(for: .milliseconds(1_400))
        scheduler.shutdown()
        try await task.value
        XCTAssertEqual(try server.stats()["phase"]?["requests"], 2, "the tick after the reload is not dropped")
    }
}
