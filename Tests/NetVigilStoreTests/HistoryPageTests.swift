import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// History pages, in process; that a page's items validate against the export schema (python3 jsonschema) is
/// IntegrationTests' HistoryPageSchemaTests.
final class HistoryPageTests: XCTestCase {
    /// Probes, reachability events and alerts that share timestamps (ties are broken by kind, then id).
    private func seededStore(_ directory: TemporaryDirectory) async throws -> Store {
        try await Fixtures.pagingStore(directory)
    }

    /// The NDJSON export's row lines in history order (time, kind, id): what paging must reproduce byte for byte.
    private func expectedLines(_ store: Store, _ query: ExportQuery = ExportQuery()) throws -> [String] {
        let output = MemoryOutput()
        _ = try HistoryExporter(store: store, version: "t").export(query, format: .ndjson, to: output)
        let order = ["probe": 0, "reachability": 1, "alert": 2]
        let rows = output.string.split(separator: "\n").dropFirst().map(String.init)
        let keyed = try rows.map { line -> ((Int64, Int, Int64), String) in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let time = try XCTUnwrap(Timestamp.parse(object["time"] as? String ?? "")).milliseconds
            return ((time, order[object["type"] as? String ?? ""] ?? 9, (object["id"] as? NSNumber)?.int64Value ?? -1), line)
        }
        return keyed.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Follows cursors to the end; fails if a page is empty but says there is more, or paging does not stop.
    private func walk(_ store: Store, _ query: ExportQuery = ExportQuery(), limit: Int) throws -> ([String], Int) {
        let exporter = HistoryExporter(store: store, version: "t")
        var cursor: HistoryCursor?
        var lines: [String] = []
        var pages = 0
        repeat {
            let page = try exporter.page(query, after: cursor, limit: limit)
            XCTAssertLessThanOrEqual(page.items.count, limit)
            if page.nextCursor != nil { XCTAssertEqual(page.items.count, limit) }
            lines += page.items.map { String(decoding: $0, as: UTF8.self) }
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil && pages < 1_000
        return (lines, pages)
    }

    func testPagesWalkTheHistoryInOrderAsExportRows() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let expected = try expectedLines(store)
        XCTAssertEqual(expected.count, 35 + 20 + 3)
        for limit in [1, 7, 35, 58, 1_000] {
            let (lines, pages) = try walk(store, limit: limit)
            XCTAssertEqual(lines, expected, "limit \(limit)")
            XCTAssertEqual(pages, max(1, (expected.count + limit - 1) / limit), "limit \(limit)")
        }
        // Ties: the five probes and the reachability event and alert at second 12 come probes first, by id.
        let atTwelve = expected.filter { $0.contains("\"time\":\"2026-11-18T11:06:52.000Z\"") }
        XCTAssertEqual(atTwelve.map { $0.hasPrefix("{\"type\":\"probe\"") }, [true, true, true, true, true, true, false, false])
        XCTAssertTrue(atTwelve[6].hasPrefix("{\"type\":\"reachability\""))
        XCTAssertTrue(atTwelve[7].hasPrefix("{\"type\":\"alert\""))
    }

    func testFiltersMeanWhatExportFiltersMean() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let queries = [
            ExportQuery(targets: ["api"]),
            ExportQuery(kinds: [.reachability, .alerts]),
            ExportQuery(since: Fixtures.base.adding(.seconds(12)), until: Fixtures.base.adding(.seconds(20)), targets: ["api", "web"]),
            ExportQuery(since: Fixtures.base.adding(.seconds(12)), kinds: [.probes]),
            ExportQuery(targets: ["nobody"]),
        ]
        for query in queries {
            let (lines, _) = try walk(store, query, limit: 4)
            XCTAssertEqual(lines, try expectedLines(store, query), "\(query)")
        }
        XCTAssertEqual(try walk(store, queries[4], limit: 4).0, [])
    }

    func testCursorStaysPutWhileNewRowsArrive() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let exporter = HistoryExporter(store: store, version: "t")
        let first = try exporter.page(ExportQuery(), after: nil, limit: 10)
        let cursor = try XCTUnwrap(first.nextCursor)
        let before = try exporter.page(ExportQuery(), after: cursor, limit: 10)
        try await store.write(WriteBatch(probes: [Fixtures.probe(500), Fixtures.probe(501)],
                                         reachabilityEvents: [Fixtures.reachability(502)]))
        let after = try exporter.page(ExportQuery(), after: cursor, limit: 10)
        XCTAssertEqual(after.items, before.items, "rows newer than the page do not shift it")
        let (lines, _) = try walk(store, limit: 9)
        XCTAssertEqual(lines, try expectedLines(store))
        XCTAssertEqual(lines.count, 58 + 3)
        XCTAssertTrue(lines.last?.hasPrefix("{\"type\":\"reachability\"") ?? false, lines.last ?? "")
    }

    func testCursorRoundTripsAndRejectsAnythingElse() throws {
        let cursor = HistoryCursor(time: 1_795_000_012_000, kind: .reachability, id: 42)
        XCTAssertEqual(HistoryCursor(encoded: cursor.encoded), cursor)
        XCTAssertFalse(cursor.encoded.contains("="))
        let base64 = { (text: String) in Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "") }
        for bad in ["", "abc", "!!!!", base64("v2.1.0.1"), base64("v1.x.0.1"), base64("v1.1.3.1"), base64("v1.1.0"),
                    base64("v1.1.0.1.5"), String(repeating: "A", count: 200)] {
            XCTAssertNil(HistoryCursor(encoded: bad), bad)
        }
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        XCTAssertThrowsError(try HistoryExporter(store: store, version: "t").page(ExportQuery(), after: nil, limit: 0))
        XCTAssertThrowsError(try HistoryExporter(store: store, version: "t").page(ExportQuery(), after: nil, limit: 1_001))
    }
}
