import Foundation
import GRDB
import NetVigilTestSupport
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
                 (.object, .text), (.array, .text), (.chain, .chain):
                continue
            default:
                XCTFail("\(spec.column): record value does not match the column's kind")
            }
        }
    }

    func testJSONOrderIsEveryColumnOnceWithEachGroupTogether() {
        XCTAssertEqual(ProbeColumn.jsonSpecs.map(\.column).sorted { $0.rawValue < $1.rawValue }, ProbeColumn.allCases)
        var closed = Set<String>()
        var open: ProbeColumn.Group?
        for spec in ProbeColumn.jsonSpecs where spec.group != open {
            if let open { closed.insert(open.key.description) }
            if let group = spec.group { XCTAssertFalse(closed.contains(group.key.description), "\(group.key) is split") }
            open = spec.group
        }
        XCTAssertEqual(ProbeColumn.jsonSpecs.filter { $0.group == .timings }.map(\.key.description),
                       ["resolve", "connect", "proxy", "tls", "revocation", "processing", "transfer", "total"])
    }
}
