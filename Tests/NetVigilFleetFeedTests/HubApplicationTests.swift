import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilFleet
import NetVigilStore
import XCTest
@testable import NetVigilFleetFeed

/// The hub's feed in process (`app.test(.router)`), from a published evaluation: the status document, metrics,
/// health, pages and the token.
final class HubApplicationTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)

    private func state(published: Bool) -> FleetHubState {
        let consensus = FleetConsensus(settings: FleetConsensusSettings())
        let state = FleetHubState(consensus: consensus, evaluateEvery: .seconds(10), client: nil, logger: Logger(label: "test"))
        guard published else { return state }
        let snapshot = FleetSnapshot(
            agents: [FleetSnapshot.Agent(agent: "a1", version: "1.0", labels: ["site": "ams1"], lastSeen: now),
                     FleetSnapshot.Agent(agent: "b1", version: "1.0", labels: ["site": "fra1"], lastSeen: now)],
            results: [FleetSnapshot.Result(agent: "a1", target: "api", url: "https://api.example.net/", time: now, outcome: "ok",
                                           pinVerdict: "matched", servedSPKI: "sha256/A", servedIssuer: "CN=CA"),
                      FleetSnapshot.Result(agent: "b1", target: "api", url: "https://api.example.net/", time: now,
                                           outcome: "failed", errorKind: "trust", pinVerdict: "mismatch",
                                           servedSPKI: "sha256/B", servedIssuer: "CN=mitmproxy")],
            time: now)
        state.publish(consensus.evaluate(snapshot), of: snapshot, took: 0.01)
        return state
    }

    private func app(_ state: FleetHubState, token: Secret? = nil) -> some ApplicationProtocol {
        Application(router: buildHubRouter(configuration: FeedConfiguration(token: token), state: state))
    }

    func testStatusDocument() async throws {
        try await app(state(published: true)).test(.router) { client in
            try await client.execute(uri: "/v1/fleet/status", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let report = try JSONDecoder().decode(FleetStatusReport.self, from: Data(buffer: response.body))
                XCTAssertEqual(report.summary.agents, 2)
                XCTAssertEqual(report.endpoints.first?.verdict, .partial)
                XCTAssertEqual(report.endpoints.first?.keys.first { $0.interception }?.sites, ["fra1"])
                let text = String(buffer: response.body)
                XCTAssertTrue(text.contains("\"down_sites\":[\"fra1\"]"), text)
                XCTAssertTrue(text.contains("\"last_seen\":"), text)
            }
        }
    }

    func testMetricsAndHealth() async throws {
        try await app(state(published: true)).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                XCTAssertTrue(text.contains("netvigil_fleet_agents{state=\"ok\"} 2"), text)
                XCTAssertTrue(text.contains("netvigil_fleet_endpoints{verdict=\"partial\"} 1"), text)
                XCTAssertTrue(text.contains("netvigil_fleet_endpoint_keys{endpoint=\"https://api.example.net/\"} 2"), text)
                XCTAssertTrue(text.contains("netvigil_fleet_alerts_firing{kind=\"path_interception\"} 1"), text)
                XCTAssertTrue(text.contains("netvigil_fleet_evaluations_total 1"), text)
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
        }
        try await app(state(published: false)).test(.router) { client in
            try await client.execute(uri: "/v1/fleet/status", method: .get) { response in
                XCTAssertEqual(response.status, .serviceUnavailable)
            }
        }
        let failing = state(published: false)
        failing.evaluationFailed("connection refused")
        try await app(failing).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .serviceUnavailable)
                XCTAssertEqual(String(buffer: response.body), "unhealthy: no evaluation has succeeded yet: connection refused\n")
            }
        }
    }

    func testExportParametersAreCheckedBeforeAnythingIsRead() async throws {
        try await app(state(published: true)).test(.router) { client in
            let refusals = [
                "/v1/fleet/export?since=-40d": "at most 31 days",
                "/v1/fleet/export?since=yesterday": "since: cannot parse time",
                "/v1/fleet/export?since=-1h&until=-2h": "must be after since",
                "/v1/fleet/export?target=api": "unknown parameter",
                "/v1/fleet/export?format=csv": "format: expected ndjson or json",
                "/v1/fleet/export?agent=": "agent: must not be empty",
                "/v1/fleet/export?agent=a&agent=b": "agent: give it at most once",
            ]
            for (uri, expected) in refusals {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .badRequest, uri)
                    XCTAssertTrue(String(buffer: response.body).contains(expected), "\(uri): \(String(buffer: response.body))")
                }
            }
        }
    }

    func testPagesAreOpenAndDataNeedsTheToken() async throws {
        try await app(state(published: true), token: Secret("s3cret")).test(.router) { client in
            for path in ["/", "/agents", "/endpoint?e=https%3A%2F%2Fapi.example.net%2F"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, path)
                    XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                    XCTAssertTrue(response.headers[.contentSecurityPolicy]?.contains("script-src 'nonce-") ?? false)
                    XCTAssertTrue(String(buffer: response.body).contains("netvigil fleet"), path)
                }
            }
            try await client.execute(uri: "/v1/fleet/status", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
            }
            try await client.execute(uri: "/v1/fleet/status", method: .get, headers: [.authorization: "Bearer s3cret"]) { response in
                XCTAssertEqual(response.status, .ok)
            }
        }
    }
}
