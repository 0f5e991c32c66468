import NetVigilProbeModel
import XCTest
@testable import NetVigilAgent
@testable import NetVigilStore

/// A target's ``TargetStates/SnapshotSource/key`` stays equal exactly while its snapshot does: every change to the
/// state (a result, a reload, seeded history), a firing alert and the passing of time (uptime) give a new key, and
/// nothing else does. The feed reuses a target's JSON on an equal key, so a missed change would serve stale data.
final class SnapshotSourceTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_795_000_000_000)

    private func states(url: String = "https://a.example/") throws -> TargetStates {
        let states = TargetStates()
        states.configure(try targets(url: url))
        return states
    }

    private func targets(url: String, extra: String = "") throws -> [ProbeTarget] {
        try AgentConfiguration(yaml: """
            targets:
              - { name: a, url: "\(url)"\(extra.isEmpty ? "" : ", " + extra) }
              - { name: b, url: "https://b.example/" }
            """, file: "t.yml").targets.targets
    }

    private func result(_ target: String, _ outcome: ProbeOutcome, at time: Timestamp) -> ProbeRecord {
        ProbeRecord(time: time, target: target, url: "https://\(target).example/", outcome: outcome,
                    timings: PhaseTimings(resolve: 0, connect: 1, tls: 2, processing: 3, transfer: 0, total: 6))
    }

    private func keys(_ states: TargetStates, at time: Timestamp? = nil, firing: [String: [FiringAlert]] = [:],
                      uptime: Bool = true) -> [String: TargetStates.SnapshotSource.Key] {
        Dictionary(uniqueKeysWithValues: states.snapshotSources(now: time ?? now, firing: firing, uptime: uptime)
            .map { ($0.name, $0.key) })
    }

    func testEachChangeGivesANewKeyAndNothingElseDoes() throws {
        let states = try states()
        let pending = keys(states)
        XCTAssertEqual(keys(states), pending, "asked again, nothing changed")

        states.record(result("a", .ok, at: now))
        let recorded = keys(states)
        XCTAssertNotEqual(recorded["a"], pending["a"], "a result")
        XCTAssertEqual(recorded["b"], pending["b"], "another target's result")

        states.record(result("missing", .ok, at: now))
        XCTAssertEqual(keys(states), recorded, "a result of a target not configured")

        states.record(result("a", .skipped, at: now))
        let skipped = keys(states)
        XCTAssertNotEqual(skipped["a"], recorded["a"], "a skipped result changes the status")

        let alert = FiringAlert(target: "a", kind: "target_down", since: now, message: "down")
        XCTAssertNotEqual(keys(states, firing: ["a": [alert]])["a"], skipped["a"], "a firing alert")

        states.configure(try targets(url: "https://a.example/"))
        XCTAssertEqual(keys(states), skipped, "a reload that changed nothing the snapshots show")
        states.configure(try targets(url: "https://a.example/", extra: "timeout: 5s"))
        XCTAssertEqual(keys(states), skipped, "a reload that changed only the timeout, which snapshots do not show")
        states.configure(try targets(url: "https://a.example/", extra: "interval: 5m"))
        XCTAssertNotEqual(keys(states)["a"], skipped["a"], "a reload that changed the interval")
        states.configure(try targets(url: "https://a.example/", extra: "labels: { team: x }"))
        XCTAssertNotEqual(keys(states)["a"], skipped["a"], "a reload that changed the labels")
        states.configure(try targets(url: "https://a.example/moved"))
        let reloaded = keys(states)
        XCTAssertNotEqual(reloaded["a"], skipped["a"], "a reload that changed the URL")
        XCTAssertEqual(reloaded["b"], skipped["b"], "the other target, unchanged")

        states.seed([Store.OutcomeCount(target: "b", time: now, ok: 3, failed: 1)])
        XCTAssertNotEqual(keys(states)["b"], reloaded["b"], "seeded history")
        XCTAssertEqual(keys(states)["a"], reloaded["a"])
    }

    func testUptimeMovesTheKeyOnlyWhenARatioMoves() throws {
        let states = try states()
        states.record(result("a", .ok, at: now))
        states.record(result("a", .failed, at: Timestamp(milliseconds: now.milliseconds + 1_000)))
        let fresh = keys(states, at: Timestamp(milliseconds: now.milliseconds + 2_000))
        XCTAssertEqual(keys(states, at: Timestamp(milliseconds: now.milliseconds + 30_000)), fresh, "same ratios")
        let twoHoursOn = keys(states, at: Timestamp(milliseconds: now.milliseconds + 7_200_000))
        XCTAssertNotEqual(twoHoursOn["a"], fresh["a"], "the results left the hour's window")
        XCTAssertEqual(keys(states, at: Timestamp(milliseconds: now.milliseconds + 7_200_000), uptime: false),
                       keys(states, uptime: false), "without uptime, time does not move the key")
    }

    func testASourceBuildsWhatSnapshotsBuild() throws {
        let states = try states()
        states.record(result("a", .failed, at: now))
        let alert = FiringAlert(target: "a", kind: "target_down", since: now, message: "down")
        let sources = states.snapshotSources(now: now, firing: ["a": [alert]])
        let built = sources.map { $0.snapshot() }
        XCTAssertEqual(built, states.snapshots(now: now, firing: ["a": [alert]]))
        XCTAssertEqual(built.map(\.name), ["a", "b"])
        XCTAssertEqual(built[0].status, .down)
        XCTAssertEqual(built[0].firingAlerts, [alert])
        XCTAssertEqual(built[0].uptime.lastHour, 0)
        XCTAssertEqual(states.snapshot("a", now: now, firing: [alert]), built[0])

        let made = TargetStates.SnapshotSource(built[0])
        XCTAssertEqual(made.snapshot(), built[0])
        XCTAssertEqual(made.key, .snapshot(built[0]))
        var other = built[0]
        other.consecutiveFailures += 1
        XCTAssertNotEqual(TargetStates.SnapshotSource(other).key, made.key)
    }
}
