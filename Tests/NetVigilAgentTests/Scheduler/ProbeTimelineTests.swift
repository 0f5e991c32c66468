import NetVigilReachability
import XCTest
@testable import NetVigilAgent

/// The scheduler's decisions (`ProbeTimeline`): placing, handing out, finishing and skipping ticks, waking targets
/// and reporting overdue ones, all at made-up instants, without clocks or tasks. Reloads: `ProbeTimelineReloadTests`.
final class ProbeTimelineTests: XCTestCase {
    private let t0 = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    private func timeline(_ targets: [ProbeTarget]) -> ProbeTimeline {
        ProbeTimeline(targets: targets, maximumSpread: .seconds(10), maximumStartRate: 100)
    }

    /// Places the targets at t0 with wall clock 0 and returns each one's first tick.
    private func placed(_ timeline: inout ProbeTimeline) -> [String: ContinuousClock.Instant] {
        timeline.place(now: t0, wallClockNanoseconds: 0)
        var ticks: [String: ContinuousClock.Instant] = [:]
        for name in timeline.names {
            guard case .scheduled(let tick, _)? = timeline.phase(of: name) else {
                XCTFail("\(name) is not scheduled: \(String(describing: timeline.phase(of: name)))")
                continue
            }
            ticks[name] = tick
        }
        return ticks
    }

    func testNothingIsDueBeforeTheSchedulerStartsThenFirstTicksFallAtTheirSpreadPlace() throws {
        let targets = try timelineTargets([("a", "60s"), ("b", "60s"), ("c", "2s")])
        var timeline = timeline(targets)
        XCTAssertEqual(timeline.phase(of: "a"), .unplaced)
        XCTAssertEqual(timeline.due(now: at(3_600_000)), [])
        XCTAssertNil(timeline.nextDue())
        XCTAssertEqual(timeline.overdue(now: at(3_600_000), after: .seconds(1)), [], "not placed: not late")
        let ticks = placed(&timeline)
        for target in targets {
            let window = ProbeScheduler.spreadWindow(interval: target.interval, targets: 3, maximumSpread: .seconds(10),
                                                     maximumStartRate: 100)
            XCTAssertEqual(ticks[target.name], t0 + ProbeScheduler.firstTickDelay(name: target.name, window: window,
                                                                                   wallClockNanoseconds: 0), target.name)
        }
        XCTAssertEqual(timeline.nextDue(), ticks.values.min())
        XCTAssertEqual(timeline.names, ["a", "b", "c"])
        XCTAssertEqual(timeline.shortestInterval, .seconds(2))
        XCTAssertEqual(timeline.longestInterval, .seconds(60))
    }

    func testDueHandsOutEveryTickOnceInOrderOfItsInstant() throws {
        var timeline = timeline(try timelineTargets((0..<50).map { ("t\($0)", "60s") }))
        let ticks = placed(&timeline)
        let middle = ticks.values.sorted()[24]
        let first = timeline.due(now: middle)
        XCTAssertEqual(first.count, 25, "every tick up to and including `now`")
        XCTAssertEqual(first.map(\.tick), first.map(\.tick).sorted())
        XCTAssertEqual(timeline.due(now: middle), [], "a tick is handed out once")
        let rest = timeline.due(now: at(10_000))
        XCTAssertEqual(Set((first + rest).map(\.name)), Set(ticks.keys))
        for start in first + rest {
            XCTAssertEqual(start.tick, ticks[start.name])
            XCTAssertEqual(timeline.phase(of: start.name), .queued(start.tick, stamp: start.stamp))
        }
        XCTAssertNil(timeline.nextDue(), "every target waits for a permit")
    }

    func testAFinishedProbeSchedulesTheNextTickOnItsGrid() throws {
        var timeline = timeline(try timelineTargets([("a", "10s")]))
        let tick = try XCTUnwrap(placed(&timeline)["a"])
        let start = try XCTUnwrap(timeline.due(now: tick).first)
        let began = tick + .milliseconds(3)
        XCTAssertEqual(timeline.begin(start, now: began)?.name, "a")
        XCTAssertEqual(timeline.phase(of: "a"), .probing(since: began, tick: tick, stamp: start.stamp))
        XCTAssertEqual(timeline.due(now: tick + .seconds(60)), [], "never twice at once: no tick while probing")
        XCTAssertNil(timeline.begin(start, now: began), "a start is begun once")
        XCTAssertEqual(timeline.finished(start, skipped: false, now: tick + .seconds(1), wallClockNanoseconds: 0), 0)
        XCTAssertEqual(timeline.nextDue(), tick + .seconds(10), "lateness does not move the phase")
        XCTAssertEqual(timeline.finished(start, skipped: false, now: tick + .seconds(2), wallClockNanoseconds: 0), 0,
                       "a start finishes once")
        XCTAssertEqual(timeline.queuedTicks, 1)
    }

    func testASlowProbeSkipsTheTicksItMissedInsteadOfQueueingThem() throws {
        var timeline = timeline(try timelineTargets([("busy", "1s")]))
        var tick = try XCTUnwrap(placed(&timeline)["busy"])
        // Probe 3.5 ticks long: 3 missed, the next on the grid after now.
        var start = try XCTUnwrap(timeline.due(now: tick).first)
        _ = timeline.begin(start, now: tick)
        XCTAssertEqual(timeline.finished(start, skipped: false, now: tick + .milliseconds(3_500), wallClockNanoseconds: 0), 3)
        XCTAssertEqual(timeline.nextDue(), tick + .seconds(4))
        // Ending exactly on a tick misses that tick too (it was due while the probe ran).
        tick += .seconds(4)
        start = try XCTUnwrap(timeline.due(now: tick).first)
        _ = timeline.begin(start, now: tick)
        XCTAssertEqual(timeline.finished(start, skipped: false, now: tick + .seconds(2), wallClockNanoseconds: 0), 2)
        XCTAssertEqual(timeline.nextDue(), tick + .seconds(3))
    }

    func testAdvanceFindsTheFirstGridTickAfterNow() {
        let interval = Duration.milliseconds(700)
        for elapsed in [0, 1, 699, 700, 701, 1_399, 1_400, 1_401, 70_000, 69_999, 3_600_001] {
            let (next, missed) = ProbeTimeline.advance(t0, by: interval, past: at(elapsed))
            XCTAssertGreaterThan(next, at(elapsed), "\(elapsed)")
            XCTAssertLessThanOrEqual(next - interval, max(at(elapsed), t0), "\(elapsed): the first one after now")
            XCTAssertEqual(next, t0 + interval * (missed + 1), "\(elapsed): on the grid")
        }
        XCTAssertEqual(ProbeTimeline.advance(t0, by: interval, past: at(100)).missed, 0)
        XCTAssertEqual(ProbeTimeline.advance(t0, by: interval, past: at(700)).missed, 1)
    }

    func testAHostReachableAgainMakesItsSkippedTargetsDueAtOnce() throws {
        var timeline = timeline(try timelineTargets([("down", "60s", "192.0.2.1"), ("fine", "60s", "192.0.2.1"),
                                                     ("other", "60s", "192.0.2.2")]))
        let ticks = placed(&timeline)
        let starts = timeline.due(now: at(10_000))
        for start in starts {
            _ = timeline.begin(start, now: start.tick)
            _ = timeline.finished(start, skipped: start.name != "fine", now: start.tick + .milliseconds(1),
                                  wallClockNanoseconds: 0)
        }
        let host = try ReachabilityTarget(parsing: "192.0.2.1")
        let back = at(20_000)
        XCTAssertEqual(timeline.wake(host: host, now: back), ["down"], "only the skipped target of that host")
        let woken = timeline.due(now: back)
        XCTAssertEqual(woken.map(\.name), ["down"])
        XCTAssertEqual(woken.first?.tick, back, "lateness is measured from the wake")
        // It keeps its phase from the wake on.
        let start = try XCTUnwrap(woken.first)
        _ = timeline.begin(start, now: back)
        _ = timeline.finished(start, skipped: false, now: back + .milliseconds(5), wallClockNanoseconds: 0)
        guard case .scheduled(let next, _)? = timeline.phase(of: "down") else { return XCTFail("down is not scheduled") }
        XCTAssertEqual(next, back + .seconds(60))
        XCTAssertEqual(timeline.wake(host: host, now: back + .seconds(1)), [], "no longer skipped")
        // The superseded tick of "down" is dropped, not handed out a second time.
        let round = timeline.due(now: (ticks["down"] ?? t0) + .seconds(60))
        XCTAssertFalse(round.contains { $0.name == "down" }, "\(round)")
    }

    func testOverdueReportsDueProbesThatDidNotStartAndProbesPastTheirTimeout() throws {
        var timeline = timeline(try timelineTargets([("hog", "60s"), ("quick", "60s")]))
        let ticks = placed(&timeline)
        let hogTick = try XCTUnwrap(ticks["hog"])
        let quickTick = try XCTUnwrap(ticks["quick"])
        let starts = timeline.due(now: max(hogTick, quickTick))
        let hog = try XCTUnwrap(starts.first { $0.name == "hog" })
        _ = timeline.begin(hog, now: hogTick)
        // quick waits for a permit: due, not started.
        let now = max(hogTick, quickTick) + .seconds(20)
        XCTAssertEqual(timeline.overdue(now: now, after: .seconds(30)), [])
        let late = Int((now - quickTick).components.seconds)
        let running = Int((now - hogTick).components.seconds)
        XCTAssertEqual(timeline.overdue(now: now, after: .seconds(1)), [
            "probe of hog has run for \(running) s (timeout 5 s)",
            "probe of quick due \(late) s ago has not started",
        ])
        timeline.shutdown()
        XCTAssertEqual(timeline.overdue(now: now, after: .seconds(1)), [], "nothing is late once stopping")
    }

    func testAfterShutdownNothingIsHandedOutOrBegunButProbesInFlightReportBack() throws {
        var timeline = timeline(try timelineTargets([("a", "1s"), ("b", "1s")]))
        _ = placed(&timeline)
        let starts = timeline.due(now: at(10_000))
        let a = try XCTUnwrap(starts.first { $0.name == "a" })
        let b = try XCTUnwrap(starts.first { $0.name == "b" })
        _ = timeline.begin(a, now: a.tick)
        timeline.shutdown()
        XCTAssertNil(timeline.begin(b, now: b.tick), "a due probe not yet started is dropped")
        XCTAssertEqual(timeline.finished(a, skipped: false, now: a.tick + .milliseconds(2_500), wallClockNanoseconds: 0), 2)
        XCTAssertNil(timeline.nextDue(), "no next tick")
        XCTAssertEqual(timeline.due(now: at(3_600_000)), [])
    }

    func testThousandsOfTargetsEachTickOnceARoundInOrder() throws {
        var timeline = timeline(try timelineTargets((0..<2_000).map { ("t\($0)", "60s") }))
        _ = placed(&timeline)
        var seen = Set<String>()
        var last = t0
        for second in stride(from: 0, through: 60_000, by: 250) {
            for start in timeline.due(now: at(second)) {
                XCTAssertTrue(seen.insert(start.name).inserted, "\(start.name) twice")
                XCTAssertGreaterThanOrEqual(start.tick, last)
                last = start.tick
                _ = timeline.begin(start, now: at(second))
                XCTAssertEqual(timeline.finished(start, skipped: false, now: at(second + 10), wallClockNanoseconds: 0), 0)
            }
        }
        XCTAssertEqual(seen.count, 2_000)
        XCTAssertEqual(timeline.queuedTicks, 2_000, "one tick per target in the queue")
    }
}

/// Targets for the timeline tests: name, interval and optionally the host (a documentation address).
func timelineTargets(_ entries: [(name: String, interval: String)], path: String = "/") throws -> [ProbeTarget] {
    try timelineTargets(entries.map { ($0.name, $0.interval, "192.0.2.10") }, path: path)
}

func timelineTargets(_ entries: [(name: String, interval: String, host: String)], path: String = "/") throws -> [ProbeTarget] {
    let yaml = "targets:\n" + entries.map { entry in
        "  - { name: \(entry.name), url: \"https://\(entry.host)\(path)\", interval: \(entry.interval), timeout: 5s }"
    }.joined(separator: "\n")
    return try AgentConfiguration(yaml: yaml, file: "test.yml").targets.targets
}
