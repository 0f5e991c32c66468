import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// The feed's exposition checked by tools the system tier runs: `promtool check metrics` (Debian's `prometheus`)
/// and `ps` for the process start time. NetVigilFeedTests' MetricsTests has the rest, in process.
final class MetricsToolTests: XCTestCase {
    /// `promtool check metrics` on a file; nil when promtool is not installed.
    func promtoolCheck(_ text: String, in directory: TemporaryDirectory) throws -> ProcessRunner.Result? {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("promtool") }
        guard candidates.contains(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { return nil }
        let file = try directory.write("metrics.prom", text)
        return try ProcessRunner.run(["-c", #"exec promtool check metrics < "$1""#, "sh", file],
                                     executable: URL(fileURLWithPath: "/bin/sh"), timeout: 30)
    }

    func testPromtoolAcceptsTheExposition() throws {
        let directory = try TemporaryDirectory()
        let metrics = FeedMetrics()
        try MetricsFixtures.feedEverything(metrics.agent)
        metrics.agent.probeFinished(target: "api", record: MetricsFixtures.skippedRecord())
        let text = String(decoding: metrics.exposition().text, as: UTF8.self)
        guard let result = try promtoolCheck(text, in: directory) else {
            throw XCTSkip("promtool is not installed (Debian package `prometheus`); the exposition was not linted")
        }
        XCTAssertEqual(result.status, 0, "promtool check metrics rejected the exposition:\n\(result.stdout)\(result.stderr)\n\(text)")
        XCTAssertEqual(result.stdout + result.stderr, "", "promtool reported problems")

        // The same check rejects what it should, so the assertion above can fail.
        let bad = "# TYPE netvigil_probes counter\nnetvigil_probes 1\n"
        let rejected = try XCTUnwrap(try promtoolCheck(bad, in: directory))
        XCTAssertNotEqual(rejected.status, 0, "promtool accepted a counter without _total and without HELP")
    }

    /// The promtool half of MetricsTests.testProbeSeriesCarryEndpointAndConfiguredLabels: promtool accepts the
    /// labelled exposition.
    func testPromtoolAcceptsTheLabelledExposition() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", labels: MetricsFixtures.labels, record: MetricsFixtures.okRecord())
        let directory = try TemporaryDirectory()
        if let result = try promtoolCheck(String(decoding: metrics.exposition().text, as: UTF8.self), in: directory) {
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        }
    }

    func testProcessMetricsDescribeThisProcess() throws {
        let metrics = FeedMetrics()
        // Burn some CPU so the counter moves between scrapes.
        let before = try MetricsFixtures.Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))
        var x = 0.0
        for i in 0..<20_000_000 { x += Double(i).squareRoot() }
        XCTAssertGreaterThan(x, 0)
        let after = try MetricsFixtures.Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))

        let rss = try XCTUnwrap(after.samples["process_resident_memory_bytes"])
        XCTAssertGreaterThan(rss, 1_000_000)
        XCTAssertLessThan(rss, 16_000_000_000)
        let cpuBefore = try XCTUnwrap(before.samples["process_cpu_seconds_total"])
        let cpuAfter = try XCTUnwrap(after.samples["process_cpu_seconds_total"])
        XCTAssertGreaterThan(cpuAfter, cpuBefore)
        XCTAssertEqual(after.type["process_cpu_seconds_total"], "counter")
        let fds = try XCTUnwrap(after.samples["process_open_fds"])
        XCTAssertGreaterThanOrEqual(fds, 3)
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        XCTAssertEqual(after.samples["process_max_fds"], Double(limit.rlim_cur), "ulimit -n of the test process")
        let directory = try TemporaryDirectory()
        let handles = try (0..<10).map { index -> FileHandle in
            let path = directory.path("f\(index)")
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
            return try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        }
        let opened = try MetricsFixtures.Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(opened.samples["process_open_fds"]), fds + 10)
        for handle in handles { try handle.close() }
        // Started before this test, after boot.
        let start = try XCTUnwrap(after.samples["process_start_time_seconds"])
        XCTAssertLessThanOrEqual(start, Date().timeIntervalSince1970 + 1)
        XCTAssertGreaterThan(start, Date().timeIntervalSince1970 - 86_400 * 30)
        let ps = try ProcessRunner.run(["-o", "etimes=", "-p", "\(getpid())"], executable: URL(fileURLWithPath: "/bin/ps"))
        if let elapsed = Double(ps.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) {
            XCTAssertEqual(start, Date().timeIntervalSince1970 - elapsed, accuracy: 3, "agrees with ps")
        }
    }
}
