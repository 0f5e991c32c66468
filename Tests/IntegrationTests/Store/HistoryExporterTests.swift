import Foundation
import GRDB
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

final class HistoryExporterTests: XCTestCase {
    private func seededStore(_ directory: TemporaryDirectory) async throws -> Store {
        let store = try Store.open(path: directory.path("n.sqlite"))
        var probes = (0..<30).map { Fixtures.probe($0, target: $0 % 3 == 0 ? "web" : "api", ok: $0 % 5 != 0) }
        probes.append(ProbeRecord(time: Fixtures.base.adding(.seconds(40)), target: "api", outcome: .skipped,
                                  reachabilityStatus: "NotReachable"))
        try await store.write(WriteBatch(
            probes: probes,
            reachabilityEvents: (0..<10).map { Fixtures.reachability($0, target: $0 < 5 ? "default" : "api") },
            alerts: [Fixtures.alert(3), Fixtures.alert(4, state: .delivered, target: "web")]))
        return try Store.openReadOnly(path: directory.path("n.sqlite"))
    }

    private func export(_ store: Store, _ query: ExportQuery = ExportQuery(), format: ExportFormat) throws -> (String, ExportSummary) {
        let output = MemoryOutput()
        let summary = try HistoryExporter(store: store, version: "9.9.9")
            .export(query, format: format, to: output, now: Fixtures.base)
        return (output.string, summary)
    }

    func testJSONDocumentValidatesAndInlinesCertificates() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let (text, summary) = try export(store, format: .json)
        XCTAssertEqual(summary.probes, 31)
        XCTAssertEqual(summary.reachability, 10)
        XCTAssertEqual(summary.alerts, 2)
        try SchemaValidator.assertValid(text: text, ndjson: false)

        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(document["netvigil"] as? String, "9.9.9")
        XCTAssertEqual(document["exported_at"] as? String, "2026-11-18T11:06:40.000Z")
        let probes = try XCTUnwrap(document["probes"] as? [[String: Any]])
        let first = probes[0]
        XCTAssertEqual(first["time"] as? String, "2026-11-18T11:06:40.000Z")
        let chain = try XCTUnwrap(first["served_chain"] as? [[String: Any]])
        XCTAssertEqual(chain.map { $0["subject"] as? String }, ["CN=cert 1", "CN=cert 2", "CN=cert 3"])
        XCTAssertEqual(chain[0]["sha256"] as? String, String(format: "%064x", 1))
        XCTAssertEqual((first["timings_ms"] as? [String: Any])?["total"] as? Double, 4.886)
        XCTAssertTrue(text.contains("\"total\":4.886"), "µs precision, fixed 3 decimals")
        let failed = probes.first { ($0["outcome"] as? String) == "failed" }
        XCTAssertEqual((failed?["details"] as? [String: Any])?["body"] as? String, "down \"now\"")
        let skipped = try XCTUnwrap(probes.last)
        XCTAssertEqual(skipped["outcome"] as? String, "skipped")
        XCTAssertTrue(skipped["http"] is NSNull)
        XCTAssertEqual((skipped["served_chain"] as? [Any])?.count, 0)
        let times = probes.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted(), "rows in time order")
    }

    func testNDJSONLinesValidateWithTypes() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let (text, summary) = try export(store, format: .ndjson)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + summary.total)
        XCTAssertTrue(lines[0].hasPrefix("{\"type\":\"header\""))
        XCTAssertEqual(lines.filter { $0.hasPrefix("{\"type\":\"probe\"") }.count, 31)
        XCTAssertEqual(lines.filter { $0.hasPrefix("{\"type\":\"reachability\"") }.count, 10)
        XCTAssertEqual(lines.filter { $0.hasPrefix("{\"type\":\"alert\"") }.count, 2)
        try SchemaValidator.assertValid(text: text, ndjson: true)
    }

    func testTimeTargetAndKindFilters() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        let since = Fixtures.base.adding(.seconds(10))
        let until = Fixtures.base.adding(.seconds(20))
        let (_, ranged) = try export(store, ExportQuery(since: since, until: until), format: .json)
        XCTAssertEqual(ranged.probes, 10, "since inclusive, until exclusive")
        XCTAssertEqual(ranged.reachability, 0)
        let (_, api) = try export(store, ExportQuery(targets: ["api"]), format: .json)
        XCTAssertEqual(api.probes, 21)
        XCTAssertEqual(api.reachability, 5)
        XCTAssertEqual(api.alerts, 1)
        let (text, onlyReachability) = try export(store, ExportQuery(kinds: [.reachability]), format: .json)
        XCTAssertEqual(onlyReachability.total, 10)
        XCTAssertFalse(text.contains("\"probes\""))
        try SchemaValidator.assertValid(text: text, ndjson: false)
    }

    func testFlushesInChunksWithConstantBuffer() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: (0..<6_000).map { Fixtures.probe($0) }))
        final class CountingOutput: ExportOutput {
            var writes = 0
            var largest = 0
            func write(_ bytes: UnsafeRawBufferPointer) throws {
                writes += 1
                largest = max(largest, bytes.count)
            }
        }
        let output = CountingOutput()
        var progressCalls = 0
        _ = try HistoryExporter(store: store, version: "x").export(ExportQuery(), format: .ndjson, to: output) { _ in progressCalls += 1 }
        XCTAssertGreaterThan(output.writes, 10)
        XCTAssertLessThan(output.largest, 256 * 1024 + 16 * 1024, "the writer flushes at 256 KiB")
    }

    func testStringsAreEscapedAndInvalidUTF8IsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        var probe = Fixtures.probe(0, ok: false)
        probe.target = "quote\" back\\ nl\n cr\r tab\t ctl\u{01}\u{1F} del\u{7F} é 日本 🚀 </script>"
        probe.errorMessage = ""
        try await store.write(WriteBatch(probes: [probe]))
        // Bytes that are not UTF-8 (written by something else): exported as U+FFFD, like a String decode does.
        try await store.pool.write { db in try db.execute(sql: "UPDATE probe_results SET url = CAST(X'61FF62C3' AS TEXT)") }
        let (text, _) = try export(try Store.openReadOnly(path: directory.path("n.sqlite")), format: .ndjson)
        let escaped = #""target":"quote\" back\\ nl\n cr\r tab\t ctl\u0001\u001f del"# + "\u{7F}" + #" é 日本 🚀 </script>""#
        XCTAssertTrue(text.contains(escaped), text)
        XCTAssertTrue(text.contains(#""message":"""#))
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix(#"{"type":"probe""#) })
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["target"] as? String, probe.target)
        XCTAssertEqual(object["url"] as? String, "a\u{FFFD}b\u{FFFD}")
        XCTAssertEqual((object["error"] as? [String: Any])?["message"] as? String, "")
        try SchemaValidator.assertValid(text: text, ndjson: true)
    }

    func testRowsMatchTheFeedEventObjects() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let probes = [Fixtures.probe(1), Fixtures.probe(2, ok: false),
                      ProbeRecord(time: Fixtures.base, target: "x", outcome: .skipped, reachabilityStatus: "NotReachable")]
        try await store.write(WriteBatch(probes: probes))
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id FROM probe_results ORDER BY id")
        }
        XCTAssertEqual(rows.count, 3)
        let (text, _) = try export(store, ExportQuery(kinds: [.probes]), format: .json)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let exported = try XCTUnwrap(document["probes"] as? [[String: Any]])
        XCTAssertEqual(exported.count, 3)
        for row in exported {
            let id = try XCTUnwrap(row["id"] as? Int)
            var fields = row
            fields["id"] = nil
            let event = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ExportRowJSON.probe(probes[id - 1]))) as? [String: Any])
            XCTAssertEqual(NSDictionary(dictionary: fields), NSDictionary(dictionary: event), "row \(id)")
        }
    }

    func testOutputErrorsSurface() async throws {
        let directory = try TemporaryDirectory()
        let store = try await seededStore(directory)
        final class FailingOutput: ExportOutput {
            func write(_ bytes: UnsafeRawBufferPointer) throws { throw ExportError.output("cannot write out.json: No space left on device") }
        }
        XCTAssertThrowsError(try HistoryExporter(store: store, version: "x").export(ExportQuery(), format: .json, to: FailingOutput())) { error in
            XCTAssertEqual("\(error)", "cannot write out.json: No space left on device")
        }
    }
}
