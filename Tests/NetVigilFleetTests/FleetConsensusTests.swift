import NetVigilAgent
import NetVigilStore
import XCTest
@testable import NetVigilFleet

/// The fleet's verdicts from plain snapshots: consensus down/partial/up, key groups and interceptions, rotations,
/// silent and behind agents.
final class FleetConsensusTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)
    private let endpoint = "https://api.example.net/"
    private let keyA = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    private let keyB = "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="

    private func agent(_ name: String, site: String, seen secondsAgo: Int64 = 1, lag: Double = 0) -> FleetSnapshot.Agent {
        FleetSnapshot.Agent(agent: name, version: "1.0", labels: ["site": site],
                            lastSeen: Timestamp(milliseconds: now.milliseconds - secondsAgo * 1000), shippingLagSeconds: lag)
    }

    private func result(_ agent: String, _ outcome: String, key: String? = nil, issuer: String? = "CN=Example CA",
                        pin: String? = nil, target: String = "api", url: String? = nil) -> FleetSnapshot.Result {
        FleetSnapshot.Result(agent: agent, target: target, url: url ?? "https://api.example.net:443/?q=1", time: now,
                             outcome: outcome, errorKind: outcome == "failed" ? "connectRefused" : nil,
                             pinVerdict: pin, servedSPKI: key, servedIssuer: key == nil ? nil : issuer)
    }

    private func evaluate(_ agents: [FleetSnapshot.Agent], _ results: [FleetSnapshot.Result],
                          agreed: [String: FleetSnapshot.AgreedKey] = [:],
                          settings: FleetConsensusSettings = FleetConsensusSettings()) -> FleetConsensus.Evaluation {
        FleetConsensus(settings: settings).evaluate(FleetSnapshot(agents: agents, results: results, agreedKeys: agreed, time: now))
    }

    func testOneAgentDownOfThreeIsPartialAndPagesNobody() {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1"), agent("c1", site: "nyc1")]
        let evaluation = evaluate(agents, [result("a1", "ok"), result("b1", "failed"), result("c1", "ok")])
        let status = evaluation.report.endpoints.first
        // Agents name the endpoint by URL: port 443 and the query are not part of it.
        XCTAssertEqual(status?.endpoint, endpoint)
        XCTAssertEqual(status?.verdict, .partial)
        XCTAssertEqual(status?.down, ["b1"])
        XCTAssertEqual(status?.downSites, ["fra1"])
        XCTAssertFalse(evaluation.conditions.contains { $0.kind == .endpointDown }, "\(evaluation.conditions)")
    }

    func testDownWhenTheConfiguredShareOfAgentsSeesItDown() throws {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1"), agent("c1", site: "nyc1")]
        let twoOfThree = FleetConsensusSettings(downShare: try XCTUnwrap(FleetConsensusSettings.share("2 of 3")), downWhen: "2 of 3")
        let two = evaluate(agents, [result("a1", "failed"), result("b1", "failed"), result("c1", "ok")], settings: twoOfThree)
        XCTAssertEqual(two.report.endpoints.first?.verdict, .down)
        let condition = try XCTUnwrap(two.conditions.first { $0.kind == .endpointDown })
        XCTAssertEqual(condition.sites, ["ams1", "fra1"])
        XCTAssertEqual(condition.subject, endpoint)
        XCTAssertEqual(condition.severity, .page)
        XCTAssertTrue(condition.message.contains("2 of 3 agents"), condition.message)

        // 100 %: two of three is only partial.
        let all = FleetConsensusSettings(downShare: 1, downWhen: "100%")
        XCTAssertEqual(evaluate(agents, [result("a1", "failed"), result("b1", "failed"), result("c1", "ok")], settings: all)
            .report.endpoints.first?.verdict, .partial)
        // Skipped results count for neither side; no result at all is unknown.
        XCTAssertEqual(evaluate(agents, [result("a1", "skipped"), result("b1", "skipped")]).report.endpoints.first?.verdict, .unknown)
        XCTAssertEqual(evaluate(agents, [result("a1", "ok"), result("b1", "skipped")]).report.endpoints.first?.verdict, .up)
    }

    func testASingleWatchingAgentDecidesAlone() {
        XCTAssertEqual(evaluate([agent("a1", site: "ams1")], [result("a1", "failed")]).report.endpoints.first?.verdict, .down)
    }

    func testSilentAgentsAreLeftOutOfVerdictsAndReported() throws {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1", seen: 600), agent("c1", site: "nyc1")]
        let evaluation = evaluate(agents, [result("a1", "ok"), result("b1", "failed"), result("c1", "ok")])
        let status = try XCTUnwrap(evaluation.report.endpoints.first)
        XCTAssertEqual(status.verdict, .up, "the silent agent's old failure is not a vote")
        XCTAssertEqual(status.silent, ["b1"])
        let silent = try XCTUnwrap(evaluation.conditions.first { $0.kind == .agentSilent })
        XCTAssertEqual(silent.subject, "b1")
        XCTAssertEqual(evaluation.report.summary.silent, 1)
        XCTAssertEqual(evaluation.report.agents.first?.agent, "b1", "worst first")
        XCTAssertEqual(evaluation.report.agents.first?.state, .silent)
    }

    func testEachAgentIsSilentAfterThreeOfItsOwnHeartbeats() {
        var fast = agent("a1", site: "ams1", seen: 40)
        fast.heartbeat = .seconds(10)
        var slow = agent("b1", site: "fra1", seen: 40)
        slow.heartbeat = .seconds(30)
        let unknown = agent("c1", site: "nyc1", seen: 40)  // no heartbeat reported: 30 s assumed
        let evaluation = evaluate([fast, slow, unknown], [])
        XCTAssertEqual(evaluation.conditions.filter { $0.kind == .agentSilent }.map(\.subject), ["a1"])
        XCTAssertTrue(evaluation.conditions.first?.message.contains("silent after 3x its heartbeat of 10s") ?? false,
                      "\(evaluation.conditions)")
        let fixed = evaluate([fast, slow], [], settings: FleetConsensusSettings(silentAfter: .duration(.seconds(35))))
        XCTAssertEqual(fixed.conditions.filter { $0.kind == .agentSilent }.map(\.subject), ["a1", "b1"])
    }

    func testAnAgentBehindInShippingIsReported() {
        let evaluation = evaluate([agent("a1", site: "ams1", lag: 900)], [result("a1", "ok")])
        XCTAssertEqual(evaluation.report.agents.first?.state, .behind)
        XCTAssertEqual(evaluation.conditions.map(\.kind), [.agentBehind])
    }

    func testAMinorityOfSitesServedAnotherKeyIsAnInterceptionNamingSiteAndIssuer() throws {
        let agents = [agent("a1", site: "ams1"), agent("a2", site: "ams1"), agent("b1", site: "fra1"), agent("c1", site: "nyc1")]
        let evaluation = evaluate(agents, [
            result("a1", "ok", key: keyA, pin: "matched"), result("a2", "ok", key: keyA, pin: "matched"),
            result("b1", "failed", key: keyB, issuer: "CN=mitmproxy,O=mitmproxy", pin: "mismatch"),
            result("c1", "ok", key: keyA, pin: "matched"),
        ])
        let status = try XCTUnwrap(evaluation.report.endpoints.first)
        XCTAssertEqual(status.keys.map(\.spki), [keyA, keyB])
        XCTAssertEqual(status.keys.map(\.majority), [true, false])
        XCTAssertEqual(status.keys.map(\.interception), [false, true])
        XCTAssertEqual(status.keys[0].pins, .matched)
        XCTAssertEqual(status.keys[1].pins, .mismatch)
        XCTAssertEqual(status.keys[1].sites, ["fra1"])
        let interception = try XCTUnwrap(evaluation.conditions.first { $0.kind == .pathInterception })
        XCTAssertEqual(interception.sites, ["fra1"])
        XCTAssertEqual(interception.issuer, "CN=mitmproxy,O=mitmproxy")
        XCTAssertEqual(interception.detail, keyB)
        XCTAssertTrue(interception.message.contains("site fra1") && interception.message.contains("mitmproxy"), interception.message)
        XCTAssertEqual(status.verdict, .partial, "the intercepted agent's failure is one agent's")
        XCTAssertNil(status.agreedKey, "agents disagree: no agreed key")
        XCTAssertEqual(evaluation.report.summary.interceptions, 1)
    }

    func testEqualGroupsAreAnInterceptionOnlyWhenPinsTellThemApart() {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1")]
        let unpinned = evaluate(agents, [result("a1", "ok", key: keyA), result("b1", "ok", key: keyB)])
        XCTAssertFalse(unpinned.conditions.contains { $0.kind == .pathInterception }, "two sites, two keys, no pins: no verdict")
        let pinned = evaluate(agents, [result("a1", "ok", key: keyA, pin: "matched"), result("b1", "failed", key: keyB, pin: "mismatch")])
        XCTAssertEqual(pinned.conditions.filter { $0.kind == .pathInterception }.map(\.sites), [["fra1"]])
        let untrusted = evaluate(agents, [result("a1", "ok", key: keyA, pin: "matched"),
                                          result("b1", "failed", key: keyB, pin: "not_evaluated")])
        XCTAssertEqual(untrusted.report.endpoints.first?.keys.last?.pins, .notEvaluated)
        XCTAssertEqual(untrusted.conditions.filter { $0.kind == .pathInterception }.map(\.sites), [["fra1"]])
    }

    func testTheMinorityMatchingPinsWhileTheMajorityDoesNotIsNotCalledIntercepted() {
        // The server rotated to an unpinned key; the one agent still served the old, pinned key is no interception.
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1"), agent("c1", site: "nyc1")]
        let evaluation = evaluate(agents, [result("a1", "failed", key: keyB, pin: "mismatch"), result("b1", "failed", key: keyB, pin: "mismatch"),
                                           result("c1", "ok", key: keyA, pin: "matched")])
        XCTAssertFalse(evaluation.conditions.contains { $0.kind == .pathInterception }, "\(evaluation.conditions)")
    }

    func testEveryAgentSeeingOneNewKeyIsARotation() throws {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1")]
        let agreed = [endpoint: FleetSnapshot.AgreedKey(spki: keyA, issuer: "CN=Example CA", since: Timestamp(milliseconds: 0))]
        let first = evaluate(agents, [result("a1", "ok", key: keyA, pin: "matched"), result("b1", "ok", key: keyA, pin: "matched")],
                             agreed: agreed)
        XCTAssertTrue(first.conditions.isEmpty)
        XCTAssertTrue(first.newAgreedKeys.isEmpty)

        let rotated = evaluate(agents, [result("a1", "ok", key: keyB, pin: "matched"), result("b1", "ok", key: keyB, pin: "matched")],
                               agreed: agreed)
        let change = try XCTUnwrap(rotated.conditions.first { $0.kind == .serverKeyChanged })
        XCTAssertEqual(change.severity, .info, "the new key is pinned: news, not a page")
        XCTAssertEqual(change.spki, keyB)
        XCTAssertEqual(rotated.newAgreedKeys[endpoint]?.spki, keyB)
        XCTAssertEqual(rotated.report.endpoints.first?.agreedKey, keyB)

        let unpinned = evaluate(agents, [result("a1", "failed", key: keyB, pin: "mismatch"), result("b1", "failed", key: keyB, pin: "mismatch")],
                                agreed: agreed)
        XCTAssertEqual(unpinned.conditions.first { $0.kind == .serverKeyChanged }?.severity, .page)

        // The first agreement is recorded without an alert.
        let fresh = evaluate(agents, [result("a1", "ok", key: keyA), result("b1", "ok", key: keyA)])
        XCTAssertEqual(fresh.newAgreedKeys[endpoint]?.spki, keyA)
        XCTAssertFalse(fresh.conditions.contains { $0.kind == .serverKeyChanged })
    }

    func testNoRotationIsCalledFromTheFewAgentsThatStillGetAHandshake() {
        // The origin is down for everyone; only the intercepted agent still completes a handshake (with the proxy).
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1"), agent("c1", site: "nyc1")]
        let agreed = [endpoint: FleetSnapshot.AgreedKey(spki: keyA, issuer: nil, since: Timestamp(milliseconds: 0))]
        let evaluation = evaluate(agents, [result("a1", "failed"), result("b1", "failed"),
                                           result("c1", "failed", key: keyB, pin: "mismatch")], agreed: agreed)
        XCTAssertFalse(evaluation.conditions.contains { $0.kind == .serverKeyChanged }, "\(evaluation.conditions)")
        XCTAssertTrue(evaluation.newAgreedKeys.isEmpty)
        XCTAssertEqual(evaluation.report.endpoints.first?.verdict, .down)
    }

    func testEndpointsAreWorstFirstAndAgentsCountTheirDownEndpoints() {
        let agents = [agent("a1", site: "ams1"), agent("b1", site: "fra1")]
        let evaluation = evaluate(agents, [
            result("a1", "ok", target: "good", url: "https://good.example.net/"),
            result("b1", "ok", target: "good", url: "https://good.example.net/"),
            result("a1", "failed", target: "bad", url: "https://bad.example.net/"),
            result("b1", "failed", target: "bad-too", url: "https://BAD.example.net/"),
        ])
        XCTAssertEqual(evaluation.report.endpoints.map(\.endpoint), ["https://bad.example.net/", "https://good.example.net/"])
        XCTAssertEqual(evaluation.report.endpoints.map(\.verdict), [.down, .up])
        XCTAssertEqual(evaluation.report.agents.map(\.down), [1, 1])
        XCTAssertEqual(evaluation.report.agents.map(\.endpoints), [2, 2])
        XCTAssertEqual(evaluation.report.summary.down, 1)
        XCTAssertEqual(evaluation.report.summary.up, 1)
    }
}
