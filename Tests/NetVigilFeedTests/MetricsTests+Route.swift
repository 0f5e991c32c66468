import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilReachability
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `GET /metrics` through the feed's router: the token, the content type, 404 without metrics.
extension MetricsTests {
    // MARK: - GET /metrics

    func withApp(token: String?, metrics: FeedMetrics?,
                         _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token.map(Secret.init)),
            state: FeedState(store: store, metrics: metrics),
            logger: Logger(label: "test"))
        try await app.test(.router, body)
        withExtendedLifetime(directory) {}
    }

    func testMetricsRouteServesTheRegistryBehindTheToken() async throws {
        let metrics = FeedMetrics(version: "4.5.6")
        metrics.agent.probeFinished(target: "api", record: Self.okRecord())
        try await withApp(token: "s3cret-token", metrics: metrics) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
                XCTAssertEqual(response.headers[.wwwAuthenticate], "Bearer realm=\"netvigil\"")
                XCTAssertFalse(String(buffer: response.body).contains("netvigil_"))
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer wrong"]) { response in
                XCTAssertEqual(response.status, .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get,
                                     headers: [.authorization: "Bearer s3cret-token"]) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/plain; version=0.0.4; charset=utf-8")
                let e = try Exposition(String(buffer: response.body))
                XCTAssertEqual(e.samples[#"netvigil_build_info{version="4.5.6"}"#], 1)
                XCTAssertEqual(e.samples[#"netvigil_probe_success{target="api"}"#], 1)
                XCTAssertEqual(e.help["netvigil_probe_success"], AgentMetrics.catalogue[0].help)
            }
            // /healthz stays open.
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
        }
    }

    func testMetricsRouteWithoutTokenConfiguredAndWithoutMetrics() async throws {
        let metrics = FeedMetrics()
        metrics.agent.alertsPending(7)
        try await withApp(token: nil, metrics: metrics) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try Exposition(String(buffer: response.body)).samples["netvigil_alerts_pending"], 7)
            }
        }
        try await withApp(token: nil, metrics: nil) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .notFound)
                XCTAssertEqual(response.headers[.contentType], "application/json")
            }
        }
    }
}
