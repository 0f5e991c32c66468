import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilStore
import XCTest
@testable import NetVigilFeed

final class FeedApplicationTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("netvigil-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeApp(token: String? = nil) throws -> (some ApplicationProtocol, Store) {
        let store = try Store.open(path: directory.appendingPathComponent("n.sqlite").path)
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token.map(Secret.init)),
            state: FeedState(store: store, startedAt: Timestamp(milliseconds: Timestamp.now().milliseconds - 5_000)),
            logger: Logger(label: "test"))
        return (app, store)
    }

    func testHealthzSaysOkWhenStoreIsWritable() async throws {
        let (app, _) = try makeApp()
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: response.body), "ok\n")
            }
        }
    }

    func testStatusReportsVersionUptimeAndStore() async throws {
        let (app, store) = try makeApp()
        try await store.write(WriteBatch(reachabilityEvents: [ReachabilityEventRecord(
            time: .now(), target: "default", status: "ReachableViaWiFi", statusCode: 2, flags: 2, flagNames: ["reachable"])]))
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/status", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "application/json")
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                XCTAssertEqual(json["version"] as? String, NetVigilVersion.current)
                XCTAssertGreaterThanOrEqual(json["uptime_seconds"] as? Double ?? 0, 5)
                XCTAssertNotNil(Timestamp.parse(json["started_at"] as? String ?? ""))
                let storeJSON = try XCTUnwrap(json["store"] as? [String: Any])
                XCTAssertEqual(storeJSON["reachability_events"] as? Int, 1)
                XCTAssertEqual(storeJSON["probe_results"] as? Int, 0)
                XCTAssertEqual(storeJSON["alerts_pending"] as? Int, 0)
                XCTAssertGreaterThan(storeJSON["size_bytes"] as? Int ?? 0, 0)
            }
        }
    }

    /// `?view=brief` answers with the same top-level members, `?view=rows` adds `target_columns`; `view=full` is the
    /// default; another view is a 400.
    func testStatusViews() async throws {
        let (app, _) = try makeApp()
        try await app.test(.router) { client in
            var keys: [String: Set<String>] = [:]
            for uri in ["/v1/status", "/v1/status?view=full", "/v1/status?view=brief", "/v1/status?view=rows"] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, uri)
                    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                    keys[uri] = Set(json.keys)
                }
            }
            let members: Set = ["version", "started_at", "uptime_seconds", "store", "reachability", "targets"]
            XCTAssertEqual(keys, ["/v1/status": members, "/v1/status?view=full": members, "/v1/status?view=brief": members,
                                  "/v1/status?view=rows": members.union(["target_columns"])])
            try await client.execute(uri: "/v1/status?view=compact", method: .get) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertTrue(String(buffer: response.body).contains(#"unknown view \"compact\" (expected full, brief or rows)"#),
                              String(buffer: response.body))
            }
        }
    }

    func testTokenIsRequiredEverywhereButHealthz() async throws {
        let (app, _) = try makeApp(token: "s3cret-token")
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/v1/status", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
                XCTAssertEqual(response.headers[.wwwAuthenticate], "Bearer realm=\"netvigil\"")
            }
            for wrong in ["Bearer s3cret-toke", "Bearer s3cret-token2", "Basic s3cret-token", "s3cret-token", "Bearer "] {
                try await client.execute(uri: "/v1/status", method: .get, headers: [.authorization: wrong]) { response in
                    XCTAssertEqual(response.status, .unauthorized, wrong)
                }
            }
            try await client.execute(uri: "/v1/status", method: .get, headers: [.authorization: "Bearer s3cret-token"]) { response in
                XCTAssertEqual(response.status, .ok)
            }
        }
    }

    func testUnknownRouteIs404() async throws {
        let (app, _) = try makeApp()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/nope", method: .get) { response in
                XCTAssertEqual(response.status, .notFound)
            }
        }
    }

    func testConstantTimeEquals() {
        typealias M = BearerTokenMiddleware<BasicRequestContext>
        XCTAssertTrue(M.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        XCTAssertFalse(M.constantTimeEquals(Array("abc".utf8), Array("abd".utf8)))
        XCTAssertFalse(M.constantTimeEquals(Array("abc".utf8), Array("abcd".utf8)))
        XCTAssertFalse(M.constantTimeEquals([], Array("a".utf8)))
        // 256 bytes apart in length must not wrap to "equal".
        XCTAssertFalse(M.constantTimeEquals([], [UInt8](repeating: 0, count: 256)))
    }
}
