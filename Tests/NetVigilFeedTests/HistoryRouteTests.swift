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

final class HistoryRouteTests: XCTestCase {
    static let base = Timestamp(milliseconds: 1_795_000_000_000)  // 2026-11-18T11:06:40Z

    /// A store with 25 probes (api/web), 6 reachability events and 2 alerts over 25 seconds (FeedFixtures).
    static func seededStore(_ directory: TemporaryDirectory, probes: Int = 25) async throws -> Store {
        try await FeedFixtures.seededStore(directory, probes: probes)
    }

    static func makeApp(_ store: Store, token: String? = nil, events: EventHub? = nil) -> some ApplicationProtocol {
        FeedFixtures.makeApp(store, token: token, events: events)
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any], String(buffer: buffer))
    }

    func testPagesFollowCursorsThroughTheSameRowsAsTheExport() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.seededStore(directory)
        let app = Self.makeApp(store)
        try await app.test(.router) { client in
            var ids: [String] = []
            var uri = "/v1/history?limit=10"
            var pages = 0
            while true {
                let page = try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                    XCTAssertEqual(response.headers[.contentType], "application/json")
                    return try Self.json(response.body)
                }
                pages += 1
                let items = try XCTUnwrap(page["items"] as? [[String: Any]])
                ids += items.map { "\($0["type"]!)-\($0["id"]!)" }
                guard let next = page["next_cursor"] as? String else {
                    XCTAssertTrue(page["next_cursor"] is NSNull)
                    break
                }
                XCTAssertEqual(items.count, 10)
                uri = "/v1/history?limit=10&cursor=\(next)"
            }
            XCTAssertEqual(pages, 4, "33 rows in pages of 10")
            XCTAssertEqual(ids.count, 33)
            XCTAssertEqual(Set(ids).count, 33, "no row twice")
            XCTAssertEqual(ids.prefix(3), ["probe-1", "reachability-1", "probe-2"], "time order, probes first on ties")

            // The default page is 100: everything at once, the same objects the NDJSON export writes.
            let whole = try await client.execute(uri: "/v1/history", method: .get) { try Self.json($0.body) }
            let items = try XCTUnwrap(whole["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, 33)
            let output = MemoryOutput()
            _ = try HistoryExporter(store: store, version: NetVigilVersion.current).export(ExportQuery(), format: .ndjson, to: output)
            let exported = try output.string.split(separator: "\n").dropFirst().map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary)
            }
            XCTAssertEqual(Set(items.map { $0 as NSDictionary }), Set(exported))
        }
        withExtendedLifetime(directory) {}
    }

    func testFiltersAndKindNames() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.seededStore(directory)
        let app = Self.makeApp(store)
        try await app.test(.router) { client in
            let cases: [(String, Int, Set<String>)] = [
                ("kind=probes&target=api", 13, ["probe"]),
                ("kind=probe&target=api&target=web", 25, ["probe"]),
                ("kind=reachability", 6, ["reachability"]),
                ("kind=alerts,reachability", 8, ["alert", "reachability"]),
                ("kind=all&since=2026-11-18T11:06:50Z&until=2026-11-18T11:06:56Z", 6 + 1 + 1, ["probe", "reachability", "alert"]),
                ("since=2026-11-18T11:06:50Z&until=2026-11-18T11:06:55Z", 5 + 1, ["probe", "reachability"]),  // until is exclusive
                ("since=2026-11-18T13:06:50%2B02:00&until=2026-11-18T11:06:55.000Z&kind=probes", 5, ["probe"]),
                ("target=nobody", 0, []),
                ("since=-1h", 0, []),
            ]
            for (query, count, types) in cases {
                try await client.execute(uri: "/v1/history?\(query)", method: .get) { response in
                    XCTAssertEqual(response.status, .ok, "\(query): \(String(buffer: response.body))")
                    let items = try XCTUnwrap(try Self.json(response.body)["items"] as? [[String: Any]])
                    XCTAssertEqual(items.count, count, query)
                    XCTAssertEqual(Set(items.compactMap { $0["type"] as? String }), types, query)
                    if query.contains("target=api") && !query.contains("web") {
                        XCTAssertTrue(items.allSatisfy { $0["target"] as? String == "api" }, query)
                    }
                }
            }
        }
        withExtendedLifetime(directory) {}
    }

    func testBadParametersAre400WithOneLineNamingTheParameter() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.seededStore(directory)
        let app = Self.makeApp(store)
        try await app.test(.router) { client in
            let cases: [(String, String)] = [
                ("limit=0", "limit:"),
                ("limit=1001", "limit:"),
                ("limit=ten", "limit:"),
                ("since=yesterday", "since: cannot parse time \"yesterday\""),
                ("until=2026-13-01T00:00:00Z", "until:"),
                ("since=-1h&until=-2h", "until ("),
                ("kind=everything", "kind: expected probes, reachability, alerts or all"),
                ("cursor=bm9wZQ", "cursor:"),
                ("cursor=", "cursor:"),
                ("kinds=probes", "unknown parameter \"kinds\""),
                ("format=ndjson", "unknown parameter \"format\""),
                ("limit=5&limit=6", "limit: give it at most once"),
                ("target=", "target:"),
            ]
            for (query, message) in cases {
                try await client.execute(uri: "/v1/history?\(query)", method: .get) { response in
                    XCTAssertEqual(response.status, .badRequest, query)
                    XCTAssertEqual(response.headers[.contentType], "application/json", query)
                    let body = try Self.json(response.body)
                    let error = try XCTUnwrap(body["error"] as? String, query)
                    XCTAssertTrue(error.hasPrefix(message) || error.contains(message), "\(query): \(error)")
                    XCTAssertFalse(error.contains("\n"), query)
                    XCTAssertEqual(body.count, 1, query)
                }
            }
        }
        withExtendedLifetime(directory) {}
    }

    func testHistoryNeedsTheTokenWhenOneIsConfigured() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.seededStore(directory)
        let app = Self.makeApp(store, token: "history-token")
        try await app.test(.router) { client in
            for uri in ["/v1/history", "/v1/export", "/v1/events"] {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .unauthorized, uri)
                }
                try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer wrong"]) { response in
                    XCTAssertEqual(response.status, .unauthorized, uri)
                }
            }
            try await client.execute(uri: "/v1/history?limit=1", method: .get,
                                     headers: [.authorization: "Bearer history-token"]) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual((try Self.json(response.body)["items"] as? [Any])?.count, 1)
            }
        }
        withExtendedLifetime(directory) {}
    }
}
