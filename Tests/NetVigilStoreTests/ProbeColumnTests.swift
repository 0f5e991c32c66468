import Foundation
import GRDB
import XCTest
@testable import NetVigilStore

/// `ProbeColumn`, the one description of a probe row, matches the table and the record.
final class ProbeColumnTests: XCTestCase {
    func testSpecsAreInColumnOrder() {
        XCTAssertEqual(ProbeColumn.specs.map(\.column), ProbeColumn.allCases)
    }

    func testColumnsAreTheTablesColumnsAfterID() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("netvigil.sqlite"))
        let names = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('probe_results') ORDER BY cid") }
        XCTAssertEqual(names, ["id"] + ProbeColumn.specs.map(\.name.description))
    }

    func testRecordValuesHaveTheColumnsKind() {
        let record = Fixtures.probe(1, ok: false)
        for spec in ProbeColumn.specs {
            switch (spec.value, record.value(spec.column)) {
            case (.timestamp, .integer), (.integer, .integer), (.milliseconds, .milliseconds), (.text, .text),
                 (.object, .text), (.chain, .chain):
                continue
            default:
                XCTFail("\(spec.column): record value does not match the column's kind")
            }
        }
    }
}
