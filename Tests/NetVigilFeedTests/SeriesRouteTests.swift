import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `/v1/targets/NAME/uptime`, `/v1/targets/NAME/timings` and `/v1/overview` over a real store, through the router.
final class SeriesRouteTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var store: Store!
    private static let auth: HTTPFields = [.authorization: "Bearer t0ken"]

    override func setUp() async throws {
        directory = try TemporaryDirectory()
        store = try Store.open(path: directory.path("n.sqlite"))
        let now = Timestamp.now()
        func probe(_ outcome: ProbeOutcome, target: String, minutesAgo: Int64) -> ProbeRecord {
            ProbeRecord(time: now.adding(.seconds(-60 * minutesAgo)), target: target, outcome: outcome,
                        timings: PhaseTimings(resolve: 1, connect: 2, tls: 3, processing: 4, transfer: 5, total: 15))
        }
        try await store.write(WriteBatch(probes: [
            probe(.ok, target: "api", minutesAgo: 0), probe(.failed, target: "api", minutesAgo: 0),
            probe(.skipped, target: "api", minutesAgo: 0), probe(.ok, target: "api", minutesAgo: 60 * 24 * 3),
            probe(.ok, target: "web", minutesAgo: 0),
        ]))
    }

    private func app() throws -> some ApplicationProtocol {
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: """
            targets:
              - { name: api, url: https://api.example.com/health }
              - { name: web, url: https://web.example.com/ }
            """, file: "t.yml").targets.targets)
        return buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("t0ken")),
            state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
    }

    private static func json(_ response: TestResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    func testUptimeBucketsCountOutcomesAndNameTheWorst() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/v1/targets/api/uptime", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized, "the series need the token")
            }
            try await client.execute(uri: "/v1/targets/api/uptime?range=24h&bucket=30m", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try Self.json(response)
                XCTAssertEqual(body["target"] as? String, "api")
                XCTAssertEqual(body["range"] as? String, "24h")
                XCTAssertEqual(body["bucket"] as? String, "30m")
                let buckets = try XCTUnwrap(body["buckets"] as? [[String: Any]])
                XCTAssertEqual(buckets.count, 48)
                let last = try XCTUnwrap(buckets.last)
                XCTAssertEqual(last["ok"] as? Int, 1)
                XCTAssertEqual(last["failed"] as? Int, 1)
                XCTAssertEqual(last["skipped"] as? Int, 1)
                XCTAssertEqual(last["worst"] as? String, "failed")
                XCTAssertNil(buckets[0]["worst"], "an empty bucket has no worst outcome")
            }
            try await client.execute(uri: "/v1/targets/api/uptime?range=7d&bucket=1d", method: .get, headers: Self.auth) { response in
                let buckets = try XCTUnwrap(try Self.json(response)["buckets"] as? [[String: Any]])
                XCTAssertEqual(buckets.count, 7)
                XCTAssertEqual(buckets.reduce(0) { $0 + ($1["ok"] as? Int ?? 0) }, 2, "the 3-day-old result is in the week")
            }
        }
    }

    func testTimingsGiveAverageAndMaximumPerPhase() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/v1/targets/api/timings?range=1h&bucket=10m", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                let buckets = try XCTUnwrap(try Self.json(response)["buckets"] as? [[String: Any]])
                XCTAssertEqual(buckets.count, 6)
                let last = try XCTUnwrap(buckets.last)
                XCTAssertEqual(last["count"] as? Int, 1, "successful probes only")
                let phases = try XCTUnwrap(last["phases"] as? [String: [String: Double]])
                XCTAssertEqual(phases["tls"], ["avg": 3, "max": 3])
                XCTAssertEqual(Set(phases.keys), ["resolve", "connect", "tls", "processing", "transfer", "total"])
            }
        }
    }

    func testOverviewListsEveryConfiguredTargetColumnWise() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/v1/overview", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                let targets = try XCTUnwrap(try Self.json(response)["targets"] as? [[String: Any]])
                XCTAssertEqual(targets.map { $0["name"] as? String }, ["api", "web"])
                XCTAssertEqual((targets[1]["ok"] as? [Int])?.count, 48)
                XCTAssertEqual((targets[1]["ok"] as? [Int])?.last, 1)
                XCTAssertEqual((targets[1]["total_ms"] as? [Any])?.last as? Double, 15)
                XCTAssertTrue((targets[1]["total_ms"] as? [Any])?.first is NSNull)
            }
        }
    }

    func testBadParametersAndUnknownTargetsGetOneClearLine() async throws {
        let cases: [(String, HTTPResponse.Status, String)] = [
            ("/v1/targets/api/uptime?range=soon", .badRequest, "range: expected a duration like 30m, 24h or 7d, got \"soon\""),
            ("/v1/targets/api/uptime?bucket=10s", .badRequest, "bucket: must be at least 1m, got 10s"),
            ("/v1/targets/api/uptime?range=30d&bucket=1m", .badRequest,
             "range / bucket gives 43200 buckets, at most 500: use a wider bucket"),
            ("/v1/targets/api/uptime?range=60d&bucket=1d", .badRequest, "range: must be at most 31d, got 60d"),
            ("/v1/targets/api/uptime?range=10m&bucket=1h", .badRequest, "range (10m) must be at least one bucket (1h)"),
            ("/v1/targets/api/timings?range=1h&range=2h", .badRequest, "range: give it at most once"),
            ("/v1/overview?limit=3", .badRequest, "unknown parameter \"limit\" (expected range or bucket)"),
            ("/v1/targets/nope/uptime", .notFound, "no target named \"nope\""),
            ("/v1/targets/nope/timings", .notFound, "no target named \"nope\""),
        ]
        try await app().test(.router) { client in
            for (uri, status, message) in cases {
                try await client.execute(uri: uri, method: .get, headers: Self.auth) { response in
                    XCTAssertEqual(response.status, status, uri)
                    XCTAssertEqual(try Self.json(response)["error"] as? String, message, uri)
                }
            }
        }
    }
}
