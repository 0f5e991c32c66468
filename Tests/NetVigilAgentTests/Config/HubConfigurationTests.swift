import Foundation
import XCTest
@testable import NetVigilAgent

/// A hub's configuration (`netvigil fleet serve`): `fleet:` with its consensus, the agent's `feed:` and `alerts:`
/// keys, and located errors.
final class HubConfigurationTests: XCTestCase {
    /// Every error of the load, one per line.
    private func message(_ yaml: String) -> String {
        do {
            _ = try HubConfiguration(yaml: yaml, file: "hub.yml")
            return "(loaded)"
        } catch let error as ConfigError {
            return ([error.oneLine] + error.others.map(\.oneLine)).joined(separator: "\n")
        } catch {
            return "\(error)"
        }
    }

    func testDefaults() throws {
        let hub = try HubConfiguration(yaml: "fleet: { postgres: \"postgres://hub1@127.0.0.1/fleet\" }", file: "hub.yml")
        XCTAssertEqual(hub.fleet.url.user, "hub1")
        XCTAssertEqual(hub.fleet.tlsMode, .disable)
        XCTAssertEqual(hub.fleet.evaluateEvery, .seconds(10))
        XCTAssertEqual(hub.fleet.consensus, FleetConsensusSettings())
        XCTAssertEqual(hub.fleet.consensus.downShare, 0.5)
        XCTAssertEqual(hub.fleet.consensus.silentAfter, .heartbeats(3), "3 × each agent's own heartbeat")
        XCTAssertEqual(hub.fleet.consensus.silentAfter.limit(heartbeat: .seconds(10)), .seconds(30))
        XCTAssertEqual(hub.fleet.consensus.silentAfter.limit(heartbeat: nil), .seconds(90), "30 s when an agent does not say")
        // Beside an agent on one host: its own port, loopback only.
        XCTAssertEqual(hub.feed.listen, ListenAddress(host: "127.0.0.1", port: 9338))
        XCTAssertTrue(hub.alerts.sinks.isEmpty)
    }

    func testConsensusAndTheAgentsFeedAndAlertsKeys() throws {
        let hub = try HubConfiguration(yaml: """
            fleet:
              postgres: postgres://hub1@db.example.net/fleet
              evaluate_every: 5s
              consensus: { down_when: 2 of 3, silent_after: 45s, behind_after: 2m }
            feed: { max_connections: 600 }
            alerts:
              sinks:
                - { name: pager, webhook: { url: "https://pager.example.net/hook" } }
            log: { level: debug }
            """, file: "hub.yml")
        XCTAssertEqual(hub.fleet.tlsMode, .verifyFull)
        XCTAssertEqual(hub.fleet.evaluateEvery, .seconds(5))
        XCTAssertEqual(hub.fleet.consensus.downShare, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(hub.fleet.consensus.downWhen, "2 of 3")
        XCTAssertEqual(hub.fleet.consensus.silentAfter, .duration(.seconds(45)))
        XCTAssertEqual(hub.fleet.consensus.silentAfter.limit(heartbeat: .seconds(1)), .seconds(45))
        XCTAssertEqual(hub.fleet.consensus.behindAfter, .seconds(120))
        XCTAssertEqual(hub.feed.listen.port, 9338, "feed: without listen keeps the hub's port")
        XCTAssertEqual(hub.feed.maxConnections, 600)
        XCTAssertEqual(hub.alerts.sinkNames, ["pager"])
        XCTAssertEqual(hub.log.level, .debug)
    }

    func testSilentAfterAsAMultipleOfTheHeartbeat() throws {
        let hub = try HubConfiguration(yaml: "fleet: { postgres: \"postgres://h@127.0.0.1/f\", consensus: { silent_after: 2.5x } }",
                                       file: "hub.yml")
        XCTAssertEqual(hub.fleet.consensus.silentAfter, .heartbeats(2.5))
        XCTAssertEqual(hub.fleet.consensus.silentAfter.description, "2.5x")
        XCTAssertEqual(FleetConsensusSettings.SilentAfter.heartbeats(3).description, "3x")
        XCTAssertTrue(message("fleet: { postgres: \"postgres://h@127.0.0.1/f\", consensus: { silent_after: 0.5x } }")
            .contains("expected a multiple of the agents' heartbeat from 1x to 1000x"))
    }

    func testShares() {
        XCTAssertEqual(FleetConsensusSettings.share("50%"), 0.5)
        XCTAssertEqual(FleetConsensusSettings.share("100 %"), 1)
        XCTAssertEqual(FleetConsensusSettings.share("1 of 1"), 1)
        for bad in ["0%", "101%", "3 of 2", "0 of 3", "two of three", "2/3", ""] {
            XCTAssertNil(FleetConsensusSettings.share(bad), bad)
        }
    }

    func testErrorsAreLocatedAndReportedTogether() {
        let text = message("""
            fleet:
              postgres: postgres://hub1@127.0.0.1/fleet
              consensus: { down_when: most }
            feed: { listen: nowhere }
            """)
        XCTAssertTrue(text.contains("hub.yml:3:27: fleet.consensus.down_when: expected \"K of N\""), text)
        XCTAssertTrue(text.contains("hub.yml:4:17: feed.listen"), text)
        XCTAssertTrue(message("feed: { listen: 127.0.0.1:9 }").contains("fleet: required key is missing"),
                      message("feed: { listen: 127.0.0.1:9 }"))
        XCTAssertTrue(message("fleet: { postgres: \"postgres://127.0.0.1/fleet\" }").contains("the hub's login role"))
        XCTAssertTrue(message("fleet: { postgres: \"postgres://h@127.0.0.1/f\" }\ntargets: []").contains("targets"))
    }
}
