import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// A history page's items are export lines the export schema accepts (deploy/schemas/validate.py: python3 and
/// jsonschema, so the system tier). The rest of the paging tests are NetVigilStoreTests' HistoryPageTests.
final class HistoryPageSchemaTests: XCTestCase {
    func testPageItemsValidateAsExportLines() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Fixtures.pagingStore(directory)
        let header = MemoryOutput()
        _ = try HistoryExporter(store: store, version: "t").export(ExportQuery(), format: .ndjson, to: header)
        let headerLine = try XCTUnwrap(header.string.split(separator: "\n").first)
        let page = try HistoryExporter(store: store, version: "t").page(ExportQuery(), after: nil, limit: 1_000)
        let text = ([String(headerLine)] + page.items.map { String(decoding: $0, as: UTF8.self) }).joined(separator: "\n") + "\n"
        try SchemaValidator.assertValid(text: text, ndjson: true)

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(page.json)) as? [String: Any])
        XCTAssertEqual((json["items"] as? [Any])?.count, 58)
        XCTAssertTrue(json["next_cursor"] is NSNull)
    }
}
