import Foundation
import NetVigilProbeModel
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// Outcome and timing buckets computed in SQL over a real SQLite file.
final class StoreBucketTests: XCTestCase {
    private static let half: Int64 = 1_800_000
    /// A bucket boundary, so the window below starts at a known place.
    private static let now = Timestamp(milliseconds: 1_795_000_000_000 / half * half + 60_000)

    private static func probe(_ outcome: ProbeOutcome, target: String = "api", minutesAgo: Int64, total: Double = 10) -> ProbeRecord {
        ProbeRecord(time: now.adding(.seconds(-60 * minutesAgo)), target: target, outcome: outcome,
                    errorKind: outcome == .failed ? .connectRefused : nil,
                    timings: PhaseTimings(resolve: 1, connect: total / 2, tls: nil, processing: 2, transfer: 0.5, total: total))
    }

    func testWindowIsAlignedAndEndsWithTheCurrentBucket() {
        let window = Store.BucketWindow(endingAt: Self.now, widthMilliseconds: Self.half, count: 48)
        XCTAssertEqual(window.start(of: 47).milliseconds, Self.now.milliseconds - 60_000)
        XCTAssertEqual(window.end.milliseconds, Self.now.milliseconds - 60_000 + Self.half)
        XCTAssertEqual(window.start.milliseconds % Self.half, 0)
    }

    func testOutcomeBucketsCountEachOutcomeAndNameTheWorst() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: [
            Self.probe(.ok, minutesAgo: 0, total: 10), Self.probe(.ok, minutesAgo: 0, total: 30),     // current bucket
            Self.probe(.ok, minutesAgo: 5), Self.probe(.skipped, minutesAgo: 10),                     // previous: skipped
            Self.probe(.ok, minutesAgo: 40), Self.probe(.failed, minutesAgo: 45), Self.probe(.skipped, minutesAgo: 50),
            Self.probe(.ok, minutesAgo: 60 * 25),                                                     // outside 24 h
            Self.probe(.failed, target: "other", minutesAgo: 0),
        ]))
        let window = Store.BucketWindow(endingAt: Self.now, widthMilliseconds: Self.half, count: 48)
        let buckets = try await store.outcomeBuckets(target: "api", window: window)
        XCTAssertEqual(buckets.count, 48)
        XCTAssertEqual(buckets[47], Store.OutcomeBucket(start: window.start(of: 47), ok: 2, averageTotalMilliseconds: 20))
        XCTAssertEqual(buckets[46].ok, 1)
        XCTAssertEqual(buckets[46].skipped, 1)
        XCTAssertEqual(buckets[46].worst, .skipped)
        XCTAssertEqual(buckets[45].worst, .failed)
        XCTAssertEqual([buckets[45].ok, buckets[45].failed, buckets[45].skipped], [1, 1, 1])
        XCTAssertEqual(buckets[47].worst, .ok)
        XCTAssertNil(buckets[0].worst, "empty buckets are present, with nothing in them")
        XCTAssertEqual(buckets.reduce(0) { $0 + $1.ok + $1.failed + $1.skipped }, 7, "the 25 h old result is outside")

        let all = try await store.outcomeBuckets(targets: nil, window: window)
        XCTAssertEqual(Set(all.keys), ["api", "other"])
        XCTAssertEqual(all["other"]?[47].worst, .failed)
        let chosen = try await store.outcomeBuckets(targets: ["api", "never-probed"], window: window)
        XCTAssertEqual(Set(chosen.keys), ["api", "never-probed"])
        XCTAssertEqual(chosen["never-probed"]?.count, 48)
        XCTAssertEqual(chosen["api"], buckets)
    }

    func testTimingBucketsAverageAndMaximumOfSuccessfulProbes() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: [
            Self.probe(.ok, minutesAgo: 0, total: 10), Self.probe(.ok, minutesAgo: 1, total: 30),
            Self.probe(.failed, minutesAgo: 2, total: 5_000),
        ]))
        let window = Store.BucketWindow(endingAt: Self.now, widthMilliseconds: Self.half, count: 4)
        let buckets = try await store.timingBuckets(target: "api", window: window)
        XCTAssertEqual(buckets.count, 4)
        XCTAssertEqual(buckets[3].count, 2, "only successful probes")
        XCTAssertEqual(buckets[3].phases["total"], Store.PhaseStatistic(average: 20, max: 30))
        XCTAssertEqual(buckets[3].phases["connect"], Store.PhaseStatistic(average: 10, max: 15))
        XCTAssertNil(buckets[3].phases["tls"], "no probe measured tls")
        XCTAssertEqual(buckets[0], Store.TimingBucket(start: window.start))
    }
}
