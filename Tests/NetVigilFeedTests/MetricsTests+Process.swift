import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `netvigil_config_last_reload_*` (Prometheus's own names) and the standard `process_*` metrics.
extension MetricsTests {
    func testReloadOutcomeSeries() throws {
        let started = Date().timeIntervalSince1970
        let metrics = FeedMetrics()
        var e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 1, "the configuration loaded at start counts")
        let first = try XCTUnwrap(e.samples["netvigil_config_last_reload_success_timestamp_seconds"])
        XCTAssertEqual(first, started, accuracy: 5)

        metrics.agent.configReloaded(successful: false, at: Date(timeIntervalSince1970: 2_000_000_000))
        e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 0)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_success_timestamp_seconds"], first, "a refusal keeps the last success")

        metrics.agent.configReloaded(successful: true, at: Date(timeIntervalSince1970: 2_000_000_000))
        e = try render(metrics)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_successful"], 1)
        XCTAssertEqual(e.samples["netvigil_config_last_reload_success_timestamp_seconds"], 2_000_000_000)
    }

    func testProcessMetricsDescribeThisProcess() throws {
        let metrics = FeedMetrics()
        // Burn some CPU so the counter moves between scrapes.
        let before = try Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))
        var x = 0.0
        for i in 0..<20_000_000 { x += Double(i).squareRoot() }
        XCTAssertGreaterThan(x, 0)
        let after = try Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))

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
        let opened = try Exposition(String(decoding: metrics.scrape().text, as: UTF8.self))
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
