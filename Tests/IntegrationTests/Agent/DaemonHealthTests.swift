import Foundation
import Logging
import NetVigilProber
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// Liveness as `/healthz` and the watchdog see it: a due probe that cannot start, a probe past its timeout.
final class DaemonHealthTests: XCTestCase {
    private var harness: PipelineHarness!

    override func setUpWithError() throws {
        harness = try PipelineHarness()
    }

    override func tearDown() {
        harness?.close()
    }

    func testAProbeThatCannotStartOrRunsPastItsTimeoutIsReported() async throws {
        let port = harness.server.port
        let targets = try AgentConfiguration(yaml: """
            targets:
              - { name: hog, url: "http://127.0.0.1:\(port)/slow/hog?ms=2500", interval: 10s, timeout: 5s }
              - { name: quick, url: "http://127.0.0.1:\(port)/slow/quick?ms=0", interval: 200ms, timeout: 5s }
            """, file: "test.yml").targets.targets
        let pipeline = ProbePipeline(prober: Prober(), writer: harness.writer, states: TargetStates(), events: EventHub(),
                                     logger: Logger(label: "test"))
        // One probe at a time: while `hog` runs, `quick` is due and waits.
        let scheduler = ProbeScheduler(targets: targets, concurrency: 1, pipeline: pipeline, logger: Logger(label: "test"),
                                       maximumSpread: .milliseconds(1))
        XCTAssertEqual(scheduler.shortestInterval, .milliseconds(200))
        let running = Task { try await scheduler.run() }
        defer { scheduler.shutdown() }
        var problems: [String] = []
        let deadline = ContinuousClock.now + .seconds(4)
        while ContinuousClock.now < deadline {
            problems = scheduler.overdue(after: .milliseconds(700))
            if problems.contains(where: { $0.hasPrefix("probe of quick due") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertTrue(problems.contains { $0.hasPrefix("probe of quick due") && $0.hasSuffix("has not started") }, "\(problems)")
        // Seen from 20 s later, the hog has run far past its 5 s timeout.
        let later = scheduler.overdue(now: .now + .seconds(20), after: .seconds(1))
        XCTAssertTrue(later.contains { $0.hasPrefix("probe of hog has run for") && $0.hasSuffix("(timeout 5 s)") }, "\(later)")
        // The daemon's own threshold is at least 30 s: nothing is reported at these delays.
        XCTAssertEqual(DaemonHealth(scheduler: scheduler, writer: harness.writer).check().problems, [])
        scheduler.shutdown()
        try await running.value
    }
}
