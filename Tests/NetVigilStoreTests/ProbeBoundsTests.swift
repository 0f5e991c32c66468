import Foundation
import GRDB
@testable import NetVigilStore
import NetVigilTestSupport
import XCTest

/// What a server sends cannot make a stored result large.
final class ProbeBoundsTests: XCTestCase {
    func testA60KBLocationIsStoredWithinTheBounds() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let location = "https://evil.example/" + String(repeating: "é", count: 30_000)  // 60 KB, two bytes a character
        let hop = #"{"location":"\#(location)","status":302}"#
        var probe = Fixtures.probe(1, ok: false)
        probe.url = location
        probe.errorMessage = "redirect to \(location) refused"
        probe.contentType = String(repeating: "t", count: 5_000)
        probe.detailsJSON = #"{"final_url":"\#(location)","redirects":[\#(Array(repeating: hop, count: 10).joined(separator: ","))]}"#
        try await store.write(WriteBatch(probes: [probe]))

        let row = try store.read { db in
            try XCTUnwrap(Row.fetchOne(db, sql: "SELECT url, error_message, details, content_type FROM probe_results"))
        }
        let url: String = row[0], message: String = row[1], details: String = row[2], contentType: String = row[3]
        XCTAssertLessThanOrEqual(url.utf8.count, ProbeRecord.Bounds.urlBytes)
        XCTAssertLessThanOrEqual(message.utf8.count, ProbeRecord.Bounds.messageBytes)
        XCTAssertLessThanOrEqual(details.utf8.count, ProbeRecord.Bounds.detailsBytes)
        XCTAssertLessThanOrEqual(contentType.utf8.count, ProbeRecord.Bounds.shortTextBytes)
        for text in [url, message, contentType] {
            XCTAssertTrue(text.hasSuffix("…(truncated)"), text.suffix(40).description)
            XCTAssertFalse(text.contains("\u{FFFD}"), "cut on a character boundary")
        }
        XCTAssertTrue(url.hasPrefix("https://evil.example/éé"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any])
        XCTAssertEqual(object["truncated"] as? Bool, true)
        XCTAssertTrue((object["final_url"] as? String)?.hasSuffix("…(truncated)") ?? false, "\(object)")
        XCTAssertNotNil(object["redirects"] as? [Any], "the key stays, with the items that fit")

        // The exported row is the bounded one, and the whole row stays small.
        let output = MemoryOutput()
        _ = try HistoryExporter(store: store, version: "t").export(ExportQuery(kinds: [.probes]), format: .ndjson, to: output)
        let line = try XCTUnwrap(output.string.split(separator: "\n").last)
        XCTAssertLessThan(line.utf8.count, 12_000, "one result row stays within the bounds plus its fixed fields")
        XCTAssertEqual(Array(ExportRowJSON.probe(probe)).count < 12_000, true, "the live event row is bounded too")
    }

    func testTextWithinTheBoundsIsKeptAsIs() {
        let probe = Fixtures.probe(1, ok: false)
        XCTAssertFalse(probe.exceedsBounds)
        XCTAssertEqual(probe.bounded, probe)
        XCTAssertEqual(ProbeRecord.bounded(String(repeating: "a", count: 2_048), 2_048)?.utf8.count, 2_048)
        XCTAssertEqual(ProbeRecord.bounded(String(repeating: "a", count: 2_049), 2_048)?.utf8.count, 2_048)
        XCTAssertEqual(ProbeRecord.boundedDetails("{\"x\":\"" + String(repeating: "y", count: 9_000) + "\"}")?.utf8.count ?? 0 <= 4_096, true)
        XCTAssertEqual(ProbeRecord.boundedDetails(String(repeating: "[", count: 5_000)), #"{"truncated":true}"#)
    }
}
