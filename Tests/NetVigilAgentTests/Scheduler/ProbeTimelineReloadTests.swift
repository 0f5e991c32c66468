import XCTest
@testable import NetVigilAgent

/// A reload as the scheduler's state machine (`ProbeTimeline.update`) applies it: unchanged targets keep their phase,
/// changed ones restart without ever running twice at once or dropping a tick, removed ones stop.
final class ProbeTimelineReloadTests: XCTestCase {
    private let t0 = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    private func started(_ targets: [ProbeTarget]) -> ProbeTimeline {
        var timeline = ProbeTimeline(targets: targets, maximumSpread: .seconds(10), maximumStartRate: 100)
        timeline.place(now: t0, wallClockNanoseconds: 0)
        return timeline
    }

    private func tick(_ timeline: ProbeTimeline, _ name: String) -> ContinuousClock.Instant? {
        guard case .scheduled(let tick, _)? = timeline.phase(of: name) else { return nil }
        return tick
    }

    /// Hands out `name`'s tick and begins its probe.
    private func probing(_ timeline: inout ProbeTimeline, _ name: String) throws -> ProbeTimeline.Start {
        let due = try XCTUnwrap(tick(timeline, name), "\(name) is not scheduled")
        let start = try XCTUnwrap(timeline.due(now: due).first { $0.name == name })
        XCTAssertNotNil(timeline.begin(start, now: due))
        return start
    }

    func testTheSameListChangesNothing() throws {
        let targets = try timelineTargets([("a", "60s"), ("b", "10s")])
        var timeline = started(targets)
        let before = (timeline.phase(of: "a"), timeline.phase(of: "b"), timeline.queuedTicks)
        XCTAssertEqual(timeline.update(targets: try timelineTargets([("a", "60s"), ("b", "10s")]), now: at(5_000),
                                       wallClockNanoseconds: 123), ProbeTimeline.Change())
        XCTAssertEqual(timeline.phase(of: "a"), before.0)
        XCTAssertEqual(timeline.phase(of: "b"), before.1)
        XCTAssertEqual(timeline.queuedTicks, before.2)
    }

    /// An unchanged target keeps its schedule but the timeline holds the reloaded copy from then on, so the previous
    /// load's targets are not kept alive next to the new ones.
    func testAnUnchangedTargetIsHeldAsTheReloadedCopy() throws {
        var timeline = started(try timelineTargets([("a", "60s")]))
        let before = timeline.phase(of: "a")
        var reloaded = try timelineTargets([("a", "60s")])
        reloaded[0].warnings = ["marks the reloaded copy"]
        XCTAssertEqual(timeline.update(targets: reloaded, now: at(1_000), wallClockNanoseconds: 0), ProbeTimeline.Change())
        XCTAssertEqual(timeline.phase(of: "a"), before)
        let due = try XCTUnwrap(tick(timeline, "a"))
        let start = try XCTUnwrap(timeline.due(now: due).first)
        XCTAssertEqual(timeline.begin(start, now: due)?.warnings, ["marks the reloaded copy"])
    }

    func testAddedAndRemovedTargetsAreReportedAndRemovedOnesStop() throws {
        var timeline = started(try timelineTargets([("keep", "60s"), ("drop", "60s")]))
        let dropTick = try XCTUnwrap(tick(timeline, "drop"))
        let change = timeline.update(targets: try timelineTargets([("keep", "60s"), ("new", "60s")]), now: at(1_000),
                                     wallClockNanoseconds: 1_000_000_000)
        XCTAssertEqual(change, ProbeTimeline.Change(added: ["new"], changed: [], removed: ["drop"]))
        XCTAssertEqual(timeline.names, ["keep", "new"])
        let window = ProbeScheduler.spreadWindow(interval: .seconds(60), targets: 2, maximumSpread: .seconds(10),
                                                 maximumStartRate: 100)
        XCTAssertEqual(tick(timeline, "new"), at(1_000) + ProbeScheduler.firstTickDelay(
            name: "new", window: window, wallClockNanoseconds: 1_000_000_000), "placed at once while running")
        XCTAssertFalse(timeline.due(now: dropTick + .seconds(120)).contains { $0.name == "drop" })
    }

    func testTargetsAddedBeforeTheSchedulerRunsWaitToBePlaced() throws {
        var timeline = ProbeTimeline(targets: try timelineTargets([("a", "60s")]), maximumSpread: .seconds(10),
                                     maximumStartRate: 100)
        _ = timeline.update(targets: try timelineTargets([("a", "60s"), ("b", "60s")]), now: t0, wallClockNanoseconds: 0)
        XCTAssertEqual(timeline.phase(of: "b"), .unplaced)
        timeline.place(now: t0, wallClockNanoseconds: 0)
        XCTAssertNotNil(tick(timeline, "b"))
    }

    func testAChangedWaitingTargetKeepsItsNextTickWhenItsIntervalIsTheSame() throws {
        var timeline = started(try timelineTargets([("same", "60s"), ("faster", "60s")]))
        let same = try XCTUnwrap(tick(timeline, "same"))
        let change = timeline.update(targets: try timelineTargets([("same", "60s"), ("faster", "20s")], path: "/v2"),
                                     now: at(500), wallClockNanoseconds: 7)
        XCTAssertEqual(change.changed, ["faster", "same"])
        XCTAssertEqual(tick(timeline, "same"), same, "no tick dropped or added")
        let window = ProbeScheduler.spreadWindow(interval: .seconds(20), targets: 2, maximumSpread: .seconds(10),
                                                 maximumStartRate: 100)
        XCTAssertEqual(tick(timeline, "faster"), at(500) + ProbeScheduler.firstTickDelay(
            name: "faster", window: window, wallClockNanoseconds: 7), "a new interval starts at its place in the window")
        let starts = timeline.due(now: at(60_000))
        XCTAssertEqual(starts.filter { $0.name == "same" }.count, 1)
        XCTAssertEqual(timeline.begin(try XCTUnwrap(starts.first { $0.name == "same" }), now: same)?.url,
                       "https://192.0.2.10/v2", "probes with the new settings")
    }

    func testAChangedTargetThatIsProbingWaitsForThatProbeThenTakesOverItsNextTick() throws {
        var timeline = started(try timelineTargets([("a", "10s")]))
        let start = try probing(&timeline, "a")
        XCTAssertEqual(timeline.update(targets: try timelineTargets([("a", "10s")], path: "/v2"), now: start.tick,
                                       wallClockNanoseconds: 0).changed, ["a"])
        XCTAssertEqual(timeline.phase(of: "a"), .awaitingPredecessor)
        XCTAssertEqual(timeline.due(now: start.tick + .seconds(60)), [], "never two probes of one target at once")
        XCTAssertEqual(timeline.overdue(now: start.tick + .seconds(60), after: .seconds(1)), [])
        // The old probe ran 25 s: the ticks at +10 s and +20 s were missed; the new target starts at +30 s.
        XCTAssertEqual(timeline.finished(start, skipped: false, now: start.tick + .seconds(25), wallClockNanoseconds: 0), 2)
        XCTAssertEqual(tick(timeline, "a"), start.tick + .seconds(30))
        let next = try XCTUnwrap(timeline.due(now: start.tick + .seconds(30)).first)
        XCTAssertEqual(timeline.begin(next, now: next.tick)?.url, "https://192.0.2.10/v2")
    }

    func testAProbingTargetWhoseIntervalChangedStartsAtItsPlaceOnceItsProbeEnds() throws {
        var timeline = started(try timelineTargets([("a", "10s")]))
        let start = try probing(&timeline, "a")
        _ = timeline.update(targets: try timelineTargets([("a", "30s")]), now: start.tick, wallClockNanoseconds: 0)
        let end = start.tick + .seconds(2)
        XCTAssertEqual(timeline.finished(start, skipped: false, now: end, wallClockNanoseconds: 42), 0)
        let window = ProbeScheduler.spreadWindow(interval: .seconds(30), targets: 1, maximumSpread: .seconds(10),
                                                 maximumStartRate: 100)
        XCTAssertEqual(tick(timeline, "a"), end + ProbeScheduler.firstTickDelay(name: "a", window: window,
                                                                                wallClockNanoseconds: 42))
    }

    func testARemovedTargetsProbeInFlightFinishesWithoutANextTickAndAReAddedOneWaitsForIt() throws {
        var timeline = started(try timelineTargets([("a", "10s"), ("b", "10s")]))
        let a = try probing(&timeline, "a")
        let b = try probing(&timeline, "b")
        XCTAssertEqual(timeline.update(targets: [], now: a.tick, wallClockNanoseconds: 0).removed, ["a", "b"])
        XCTAssertEqual(timeline.finished(b, skipped: false, now: b.tick + .seconds(1), wallClockNanoseconds: 0), 0)
        XCTAssertNil(timeline.phase(of: "b"))
        // "a" comes back while its old probe still runs: it waits for it and keeps its grid.
        XCTAssertEqual(timeline.update(targets: try timelineTargets([("a", "10s")]), now: a.tick + .seconds(1),
                                       wallClockNanoseconds: 0).added, ["a"])
        XCTAssertEqual(timeline.phase(of: "a"), .awaitingPredecessor)
        _ = timeline.finished(a, skipped: false, now: a.tick + .seconds(3), wallClockNanoseconds: 0)
        XCTAssertEqual(tick(timeline, "a"), a.tick + .seconds(10))
    }

    func testADueTargetWaitingForAPermitIsDroppedWhenRemovedAndProbesTheNewSettingsWhenChanged() throws {
        var timeline = started(try timelineTargets([("gone", "10s"), ("moved", "10s")]))
        let starts = timeline.due(now: at(10_000))
        XCTAssertEqual(starts.count, 2)
        _ = timeline.update(targets: try timelineTargets([("moved", "10s")], path: "/v2"), now: at(10_000),
                            wallClockNanoseconds: 0)
        for start in starts {
            let target = timeline.begin(start, now: at(10_001))
            XCTAssertEqual(target?.url, start.name == "moved" ? "https://192.0.2.10/v2" : nil, start.name)
        }
    }

    func testReloadsDoNotPileUpStaleTicks() throws {
        let names = (0..<600).map { "t\($0)" }
        var timeline = started(try timelineTargets(names.map { ($0, "10s") }))
        for round in 1...10 {
            // Every target's interval changes each time: each gets a new tick, the old one goes stale.
            let interval = round % 2 == 0 ? "10s" : "20s"
            _ = timeline.update(targets: try timelineTargets(names.map { ($0, interval) }, path: "/\(round)"),
                                now: at(round), wallClockNanoseconds: 0)
            XCTAssertLessThanOrEqual(timeline.queuedTicks, 2 * names.count + 1_024 + names.count)
        }
        let starts = timeline.due(now: at(60_000))
        XCTAssertEqual(starts.count, names.count, "one tick per target, stale ones dropped")
    }
}
