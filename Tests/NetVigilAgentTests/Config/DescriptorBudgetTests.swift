import XCTest
@testable import NetVigilAgent

final class DescriptorBudgetTests: XCTestCase {
    private func budget(limit: Int?, processors: Int = 2, concurrency: Int = 64, maxConnections: Int = 512,
                        maxEventSubscribers: Int = 256) -> DescriptorBudget {
        var scheduler = SchedulerSection()
        scheduler.concurrency = concurrency
        var feed = FeedSection()
        feed.maxConnections = maxConnections
        feed.maxEventSubscribers = maxEventSubscribers
        return DescriptorBudget(limit: limit, processors: processors, scheduler: scheduler, feed: feed)
    }

    /// The worst case the budget allows: the daemon's own files, every probe at its most, every feed connection.
    private func worstCase(_ budget: DescriptorBudget) -> Int {
        budget.reserved + budget.probeDescriptors + budget.feedConnections
    }

    func testAGenerousLimitChangesNothing() {
        for limit in [4_096, 524_288] {
            let settled = budget(limit: limit)
            XCTAssertEqual(settled.concurrency, 64)
            XCTAssertEqual(settled.feedConnections, 512)
            XCTAssertEqual(settled.eventSubscribers, 256)
            XCTAssertEqual(settled.adjustments, [])
        }
        XCTAssertEqual(budget(limit: nil).adjustments, [])
        XCTAssertEqual(budget(limit: nil).feedConnections, 512)
    }

    /// systemd's default soft limit with a hard limit that cannot be raised: the feed gives way to the probes.
    func testAFeedCapAboveTheLimitIsLoweredToWhatTheProbesLeave() {
        let settled = budget(limit: 1_024, maxConnections: 5_000)
        XCTAssertEqual(settled.concurrency, 64)
        XCTAssertEqual(settled.reserved, 56)
        XCTAssertEqual(settled.feedConnections, 1_024 - 56 - 64 * 4)
        XCTAssertEqual(worstCase(settled), 1_024)
        XCTAssertEqual(settled.adjustments.count, 1)
        XCTAssertTrue(settled.adjustments[0].hasPrefix("feed.max_connections 5000 lowered to 712: the open-file limit is 1024"),
                      settled.adjustments[0])
        XCTAssertTrue(settled.adjustments[0].contains("LimitNOFILE="), settled.adjustments[0])
    }

    /// The resilience suite's daemon: 256 descriptors, 32 probes at once, a cap of 5,000.
    func testTheResilienceSuitesDaemonFitsUnderItsLimit() {
        let settled = budget(limit: 256, concurrency: 32, maxConnections: 5_000)
        XCTAssertEqual(settled.concurrency, 32)
        XCTAssertEqual(settled.feedConnections, 256 - 56 - 128)
        XCTAssertEqual(settled.eventSubscribers, 36, "below the lowered cap, half of it")
        XCTAssertLessThan(settled.eventSubscribers, settled.feedConnections)
        XCTAssertEqual(worstCase(settled), 256)
        XCTAssertEqual(settled.adjustments.count, 2)
    }

    func testATinyLimitLowersTheConcurrencyAndKeepsTheFeedReachable() {
        let settled = budget(limit: 128, concurrency: 64)
        XCTAssertEqual(settled.concurrency, (128 - 56 - 8) / 4)
        XCTAssertEqual(settled.feedConnections, DescriptorBudget.minimumFeedConnections)
        XCTAssertLessThanOrEqual(worstCase(settled), 128)
        XCTAssertTrue(settled.adjustments[0].hasPrefix("scheduler.concurrency 64 lowered to 16"), settled.adjustments[0])
        // Below the daemon's own reserve one probe and the minimal feed are all that is left.
        let starved = budget(limit: 20)
        XCTAssertEqual(starved.concurrency, 1)
        XCTAssertEqual(starved.feedConnections, DescriptorBudget.minimumFeedConnections)
        XCTAssertEqual(starved.eventSubscribers, 4)
    }

    /// Every limit from tiny to generous: never over the limit once it can hold the minimum, settings only lowered.
    func testTheWorstCaseNeverExceedsTheLimit() {
        for processors in [1, 2, 16, 64] {
            for limit in stride(from: 0, through: 3_000, by: 7) {
                let settled = budget(limit: limit, processors: processors, concurrency: 100, maxConnections: 1_000,
                                     maxEventSubscribers: 900)
                XCTAssertLessThanOrEqual(settled.concurrency, 100)
                XCTAssertGreaterThanOrEqual(settled.concurrency, 1)
                XCTAssertLessThanOrEqual(settled.feedConnections, 1_000)
                XCTAssertLessThan(settled.eventSubscribers, settled.feedConnections)
                let minimum = settled.reserved + DescriptorBudget.perProbe + DescriptorBudget.minimumFeedConnections
                if limit >= minimum {
                    XCTAssertLessThanOrEqual(worstCase(settled), limit, "limit \(limit), \(processors) processors")
                }
            }
        }
    }

    func testAppliedFeedKeepsEverythingElse() {
        var feed = FeedSection()
        feed.maxConnections = 5_000
        feed.publicStatus = true
        let settled = DescriptorBudget(limit: 256, processors: 2, scheduler: SchedulerSection(), feed: feed)
        let applied = settled.applied(to: feed)
        XCTAssertEqual(applied.maxConnections, settled.feedConnections)
        XCTAssertEqual(applied.maxEventSubscribers, settled.eventSubscribers)
        XCTAssertTrue(applied.publicStatus)
        XCTAssertEqual(applied.listen, feed.listen)
    }

    /// Targets that connect once per path and address: their probes are counted at what they may hold, so a few
    /// `addresses: all` targets lower the feed's share, not every probe's.
    func testTargetsOfManyAddressesOrPathsCountAtTheirMost() throws {
        let configuration = try AgentConfiguration(yaml: """
            scheduler: { concurrency: 64 }
            targets:
              - { name: plain, url: "https://api.example.com/" }
              - { name: every, url: "https://api.example.com/", addresses: all }
              - { name: paths, url: "https://api.example.com/", addresses: all, source: { interfaces: [eth0, wwan0] } }
              - { name: pinned, url: "https://api.example.com/", connect_to: [192.0.2.1, 192.0.2.2, 192.0.2.3] }
            """, file: "n.yml")
        let targets = configuration.targets.targets
        XCTAssertEqual(targets.map(DescriptorBudget.descriptors(for:)), [4, 34, 66, 5])
        let settled = DescriptorBudget(limit: 512, processors: 2, scheduler: configuration.scheduler,
                                       feed: configuration.feed, targets: targets)
        XCTAssertEqual(settled.concurrency, 64)
        XCTAssertEqual(settled.probeDescriptors, 66 + 34 + 5 + 61 * 4)
        XCTAssertEqual(settled.feedConnections, 512 - 56 - settled.probeDescriptors)
        XCTAssertEqual(settled.reserved + settled.probeDescriptors + settled.feedConnections, 512)
        // Too tight for 64: the heavy ones still fit, the plain slots give way.
        let tight = DescriptorBudget(limit: 256, processors: 2, scheduler: configuration.scheduler,
                                     feed: configuration.feed, targets: targets)
        XCTAssertEqual(tight.probeDescriptors, 66 + 34 + 5 + (tight.concurrency - 3) * 4)
        XCTAssertEqual(tight.concurrency, 3 + (256 - 56 - 8 - 105) / 4)
        XCTAssertEqual(tight.feedConnections, 256 - 56 - tight.probeDescriptors)
        XCTAssertTrue(tight.adjustments[0].contains("up to 66 for a probe of several paths or addresses"), tight.adjustments[0])
    }
}
