import Foundation
import Logging
import NetVigilProber
import NetVigilReachability
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// The reachability gate of `ProbePipeline` against a real netlink watcher: the watcher follows a network namespace
/// the test creates, in which `127.0.0.1` is reachable until the test takes `lo` down, while the probes go to a
/// slow server on the host's loopback. Taking `lo` down during a probe is the race of a link dropping between the
/// reachability check and the connect.
final class ProbePipelineTests: XCTestCase {
    private var harness: PipelineHarness!

    override func setUpWithError() throws { harness = try PipelineHarness() }

    override func tearDown() { harness?.close() }

    /// A target whose server answers after `delayMs`.
    private func target(delayMs: Int, timeout: String, expect: String = "") throws -> ProbeTarget {
        let yaml = """
            targets:
              - { name: slow, url: "http://127.0.0.1:\(harness.server.port)/slow/slow?ms=\(delayMs)", interval: 10s, timeout: \(timeout)\(expect) }
            """
        return try XCTUnwrap(AgentConfiguration(yaml: yaml, file: "test.yml").targets.targets.first)
    }

    /// A watcher of a fresh namespace (loopback up), a pipeline using it, and the namespace.
    private func makePipeline() async throws -> (ProbePipeline, ReachabilityMonitor, NetworkNamespace) {
        let namespace = try NetworkNamespace(for: self)
        let loopback = try ReachabilityTarget(parsing: "127.0.0.1")
        let monitor = ReachabilityMonitor(targets: [loopback], options: .init(networkNamespacePath: namespace.path))
        try await monitor.start()
        addTeardownBlock { await monitor.stop() }
        let before = await monitor.current(loopback)
        XCTAssertEqual(before?.status, .reachableViaWiFi, "loopback is up in the namespace")
        let pipeline = ProbePipeline(prober: Prober(), writer: harness.writer, states: TargetStates(), events: EventHub(),
                                     reachability: monitor, logger: Logger(label: "test"))
        return (pipeline, monitor, namespace)
    }

    /// Takes the namespace's loopback down after `delay`, while a probe runs.
    private func linkDown(_ namespace: NetworkNamespace, after delay: Duration) -> Task<Void, any Error> {
        Task.detached {
            try await Task.sleep(for: delay)
            try namespace.ip("link", "set", "lo", "down")
        }
    }

    /// The outcomes of the stored probe rows, oldest first.
    private func storedOutcomes() async throws -> [String] {
        try await harness.writer.write(WriteBatch())
        let page = try HistoryExporter(store: harness.store, version: "test").page(ExportQuery(kinds: [.probes]), after: nil, limit: 100)
        return page.items.compactMap { item in
            (try? JSONSerialization.jsonObject(with: Data(item)) as? [String: Any])?["outcome"] as? String
        }
    }

    func testAProbeFailingAsTheLinkGoesDownIsRecordedAsSkipped() async throws {
        let (pipeline, _, namespace) = try await makePipeline()
        let down = linkDown(namespace, after: .milliseconds(300))
        let record = await pipeline.run(try target(delayMs: 3_000, timeout: "1s"))
        try await down.value

        XCTAssertEqual(record.outcome, .skipped, record.errorMessage ?? "")
        XCTAssertEqual(record.reachabilityStatus, "NotReachable")
        let message = try XCTUnwrap(record.errorMessage)
        XCTAssertTrue(message.hasPrefix("probe failed as the network went away (timeout:"), message)
        XCTAssertTrue(message.contains("127.0.0.1 is NotReachable (flags: isLocalAddress,isDirect)"), message)
        XCTAssertTrue(record.detailsJSON?.contains("\"reachability\"") ?? false, "the evaluation is attached")
        let outcomes = try await storedOutcomes()
        XCTAssertEqual(outcomes, ["skipped"], "stored as skipped, not as a failure")
    }

    func testAProbeFailingWhileTheHostStaysReachableIsAFailure() async throws {
        let (pipeline, _, _) = try await makePipeline()
        let record = await pipeline.run(try target(delayMs: 3_000, timeout: "1s"))

        XCTAssertEqual(record.outcome, .failed)
        XCTAssertEqual(record.errorKind, .timeout)
        XCTAssertEqual(record.reachabilityStatus, "ReachableViaWiFi")
        let outcomes = try await storedOutcomes()
        XCTAssertEqual(outcomes, ["failed"])
    }

    func testAVerdictOnWhatTheServerSentIsNeverBlamedOnTheNetwork() async throws {
        let (pipeline, monitor, namespace) = try await makePipeline()
        let down = linkDown(namespace, after: .milliseconds(200))
        let record = await pipeline.run(
            try target(delayMs: 800, timeout: "5s", expect: ", expect: { status: [201] }"))
        try await down.value

        XCTAssertEqual(record.outcome, .failed, "a wrong status is the server's answer, whatever the link does")
        XCTAssertEqual(record.errorKind, .status)
        let now = await monitor.current(try ReachabilityTarget(parsing: "127.0.0.1"))
        XCTAssertEqual(now?.status, .notReachable, "the link did go down during the probe")
    }

    func testNetworkLossKindsAreTheTransportOnes() {
        let transport = ProbeError.Kind.allCases.filter(\.mayBeNetworkLoss)
        XCTAssertEqual(transport, [.dns, .connectRefused, .connectTimeout, .connect, .tlsHandshake, .httpProtocol, .timeout])
    }

    /// The agent's own shortage is stored as skipped with the error, so it counts neither for nor against the target.
    func testTheAgentsOwnShortageIsStoredAsSkipped() throws {
        let configuration = try AgentConfiguration(yaml: "targets:\n  - { name: api, url: \"https://api.test/\" }\n", file: "n.yml")
        let target = try XCTUnwrap(configuration.targets.targets.first)
        let error = ProbeError(.resourceExhausted, "cannot connect to 192.0.2.7:443: the agent is out of file descriptors")
        let record = ProbePipeline.agentFailure(target, error: error, reachability: nil, now: Timestamp(milliseconds: 1_000))
        XCTAssertEqual(record.outcome, .skipped)
        XCTAssertEqual(record.errorKind, .resourceExhausted)
        XCTAssertEqual(record.errorMessage, "not probed: cannot connect to 192.0.2.7:443: the agent is out of file descriptors")
        XCTAssertEqual(record.target, "api")
    }
}
