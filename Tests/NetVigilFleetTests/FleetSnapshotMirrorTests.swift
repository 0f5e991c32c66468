import NetVigilAgent
import NetVigilStore
import XCTest
@testable import NetVigilFleet

/// The hub's copy of the latest results: a read of the changed rows replaces those pairs and adds new ones, and the
/// agents, agreed keys and clock come from the newest read.
final class FleetSnapshotMirrorTests: XCTestCase {
    private func result(_ agent: String, _ target: String, _ outcome: String, at milliseconds: Int64) -> FleetSnapshot.Result {
        FleetSnapshot.Result(agent: agent, target: target, url: "https://\(target).example.net/",
                             time: Timestamp(milliseconds: milliseconds), outcome: outcome)
    }

    func testChangedRowsReplaceTheirPairsAndNewPairsAreAdded() {
        let agentA = FleetSnapshot.Agent(agent: "a", version: "1", lastSeen: Timestamp(milliseconds: 1_000))
        let full = FleetSnapshot(agents: [agentA],
                                 results: [result("a", "api", "ok", at: 1_000), result("a", "web", "ok", at: 1_000),
                                           result("b", "api", "ok", at: 1_000)],
                                 time: Timestamp(milliseconds: 1_500))
        var copy = FleetSnapshotMirror.Copy(full: full, horizon: 10, at: .now)
        XCTAssertEqual(copy.positions.count, 3)

        let agentB = FleetSnapshot.Agent(agent: "b", version: "1", lastSeen: Timestamp(milliseconds: 2_000))
        let key = FleetSnapshot.AgreedKey(spki: "sha256/k", issuer: nil, since: Timestamp(milliseconds: 2_000))
        let delta = FleetSnapshot(agents: [agentA, agentB],
                                  results: [result("a", "web", "failed", at: 2_000), result("c", "api", "ok", at: 2_000)],
                                  agreedKeys: ["https://api.example.net/": key], time: Timestamp(milliseconds: 2_500))
        FleetSnapshotMirror.merge(delta, horizon: 12, into: &copy)

        XCTAssertEqual(copy.horizon, 12)
        XCTAssertEqual(copy.snapshot.time, Timestamp(milliseconds: 2_500))
        XCTAssertEqual(copy.snapshot.agents.map(\.agent), ["a", "b"])
        XCTAssertEqual(copy.snapshot.agreedKeys.keys.sorted(), ["https://api.example.net/"])
        XCTAssertEqual(copy.snapshot.results.map { "\($0.agent)/\($0.target)/\($0.outcome)/\($0.time.milliseconds)" },
                       ["a/api/ok/1000", "a/web/failed/2000", "b/api/ok/1000", "c/api/ok/2000"])
        // Merged again with the same rows (a read whose horizon overlaps the last one): nothing changes.
        let before = copy.snapshot
        FleetSnapshotMirror.merge(delta, horizon: 12, into: &copy)
        XCTAssertEqual(copy.snapshot, before)
        XCTAssertEqual(copy.positions.count, 4)
    }

    /// The merged copy decides as a full read of the same rows would.
    func testMergedCopyDecidesAsAFullReadDoes() {
        let agents = ["a", "b", "c"].map { FleetSnapshot.Agent(agent: $0, version: "1", labels: ["site": "s-\($0)"],
                                                             lastSeen: Timestamp(milliseconds: 9_000)) }
        let first = ["a", "b", "c"].map { result($0, "api", "ok", at: 1_000) }
        var copy = FleetSnapshotMirror.Copy(full: FleetSnapshot(agents: agents, results: first, time: Timestamp(milliseconds: 9_500)),
                                            horizon: 1, at: .now)
        let changed = ["a", "b"].map { result($0, "api", "failed", at: 2_000) }
        FleetSnapshotMirror.merge(FleetSnapshot(agents: agents, results: changed, time: Timestamp(milliseconds: 9_600)),
                                  horizon: 2, into: &copy)
        let fullRead = FleetSnapshot(agents: agents, results: changed + [result("c", "api", "ok", at: 1_000)],
                                     time: Timestamp(milliseconds: 9_600))
        let consensus = FleetConsensus(settings: FleetConsensusSettings())
        XCTAssertEqual(consensus.evaluate(copy.snapshot).report.endpoints.first?.verdict, .down)
        XCTAssertEqual(consensus.evaluate(copy.snapshot).report, consensus.evaluate(fullRead).report)
    }
}
