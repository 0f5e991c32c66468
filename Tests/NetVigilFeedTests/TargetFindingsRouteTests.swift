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

/// Findings and the `proxy` and `revocation` phases through the feed: `/v1/status`, `/v1/targets/NAME`, its timings
/// and the target page's markup, over a real store.
final class TargetFindingsRouteTests: XCTestCase {
    private static let auth: HTTPFields = [.authorization: "Bearer t0ken"]
    private static let finding = TrustFinding(code: "w_sub_cert_cn_not_in_san", certificate: 0,
                                              message: "the CN api.internal is not one of the SANs")

    private func app(_ directory: TemporaryDirectory) async throws -> some ApplicationProtocol {
        let store = try Store.open(path: directory.path("n.sqlite"))
        let now = Timestamp.now()
        func probe(_ secondsAgo: Int64, findings: [TrustFinding]?) -> ProbeRecord {
            ProbeRecord(time: now.adding(.seconds(-secondsAgo)), target: "api", url: "https://api.example.com/", outcome: .ok,
                        timings: PhaseTimings(resolve: 1, connect: 2, tls: 3, processing: 4, transfer: 5, total: 40,
                                              proxy: 6, revocation: 20),
                        trustVerdict: findings == nil ? nil : .trusted, findings: findings)
        }
        let records = [probe(30, findings: []), probe(20, findings: [Self.finding]), probe(10, findings: nil)]
        try await store.write(WriteBatch(probes: records))
        let configured = try AgentConfiguration(yaml: "targets: [{ name: api, url: \"https://api.example.com/\" }]", file: "t.yml")
        let states = TargetStates()
        states.configure(configured.targets.targets)
        states.record(records[1])  // the last result that judged a chain
        let feed = FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("t0ken"))
        return buildApplication(configuration: feed, state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
    }

    private static func json(_ response: TestResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    func testTargetRouteStatusAndTimingsCarryFindingsAndTheNewPhases() async throws {
        let directory = try TemporaryDirectory()
        try await app(directory).test(.router) { client in
            try await client.execute(uri: "/v1/targets/api", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try Self.json(response)
                let results = try XCTUnwrap(body["results"] as? [[String: Any]])
                XCTAssertEqual(results.count, 3)
                XCTAssertTrue(results[0]["findings"] is NSNull, "newest first: no trust verdict")
                let findings = try XCTUnwrap(results[1]["findings"] as? [[String: Any]])
                XCTAssertEqual(findings.map { $0["code"] as? String }, ["w_sub_cert_cn_not_in_san"])
                XCTAssertEqual(findings.first?["message"] as? String, Self.finding.message)
                XCTAssertEqual((results[2]["findings"] as? [Any])?.count, 0)
                let timings = try XCTUnwrap(results[1]["timings_ms"] as? [String: Any])
                XCTAssertEqual(timings["proxy"] as? Double, 6)
                XCTAssertEqual(timings["revocation"] as? Double, 20)
                let last = try XCTUnwrap((body["target"] as? [String: Any])?["last_result"] as? [String: Any])
                XCTAssertEqual((last["findings"] as? [[String: Any]])?.first?["certificate"] as? Int, 0)
                XCTAssertEqual((last["timings"] as? [String: Any])?["revocation"] as? Double, 20)
            }
            try await client.execute(uri: "/v1/status", method: .get, headers: Self.auth) { response in
                let target = try XCTUnwrap((try Self.json(response)["targets"] as? [[String: Any]])?.first)
                let last = try XCTUnwrap(target["last_result"] as? [String: Any])
                XCTAssertEqual((last["findings"] as? [[String: Any]])?.first?["code"] as? String, "w_sub_cert_cn_not_in_san")
            }
            try await client.execute(uri: "/v1/targets/api/timings?range=1h&bucket=10m", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                // The newest bucket that has probes (all three have the same phases).
                let buckets = try XCTUnwrap(try Self.json(response)["buckets"] as? [[String: Any]])
                let filled = try XCTUnwrap(buckets.last { ($0["count"] as? Int ?? 0) > 0 })
                let phases = try XCTUnwrap(filled["phases"] as? [String: [String: Double]])
                XCTAssertEqual(phases["proxy"], ["avg": 6, "max": 6])
                XCTAssertEqual(phases["revocation"], ["avg": 20, "max": 20])
            }
            try await client.execute(uri: "/targets/api", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let page = String(buffer: response.body)
                XCTAssertTrue(page.contains(#"<table id="findings">"#), "the findings section")
                XCTAssertTrue(page.contains("function renderFindings()"))
                XCTAssertTrue(page.contains(##"["revocation", "#e16f24"]"##), "the phase chart has the revocation phase")
                XCTAssertTrue(page.contains(##"["proxy", "#57606a"]"##), "and the proxy phase")
            }
        }
    }
}
