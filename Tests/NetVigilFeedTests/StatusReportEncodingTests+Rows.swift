import Foundation
import NetVigilAgent
import XCTest
@testable import NetVigilFeed

extension StatusReportEncodingTests {
    /// `?view=rows`: the brief document with `target_columns` added and each target an array holding, at each
    /// column's position, the brief view's value of that name (`last_result.X` its last result's `X`, `firing_alerts`
    /// the kinds, `null` for what the brief view leaves out); a warm cache gives the same bytes.
    func testTheRowsViewIsTheBriefViewAsArrays() throws {
        var report = try report(variedTargets(), portal: true)
        let brief = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(buffer: report.encodedJSON(cache: TargetFragmentCache(BriefTargetSnapshot.init)).buffer)) as? [String: Any])
        report.targetColumns = TargetRow.columns
        let rowCache = TargetFragmentCache(TargetRow.init)
        let rowBytes = try report.encodedJSON(cache: rowCache).buffer
        XCTAssertEqual(try report.encodedJSON(cache: rowCache).buffer, rowBytes, "warm")
        var rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: rowBytes)) as? [String: Any])
        XCTAssertEqual(rows.removeValue(forKey: "target_columns") as? [String], TargetRow.columns)
        let rowTargets = try XCTUnwrap(rows.removeValue(forKey: "targets") as? [[Any]])
        var briefOthers = brief
        let briefTargets = try XCTUnwrap(briefOthers.removeValue(forKey: "targets") as? [[String: Any]])
        XCTAssertEqual(NSDictionary(dictionary: rows), NSDictionary(dictionary: briefOthers), "everything but the targets")

        XCTAssertEqual(rowTargets.count, 3)
        for (row, target) in zip(rowTargets, briefTargets) {
            let expected: [Any] = TargetRow.columns.map { column in
                if column.hasPrefix("last_result.") {
                    return (target["last_result"] as? [String: Any])?[String(column.dropFirst("last_result.".count))] ?? NSNull()
                }
                if column == "firing_alerts" {
                    return (target["firing_alerts"] as? [[String: Any]] ?? []).map { $0["kind"] ?? NSNull() }
                }
                return target[column] ?? NSNull()
            }
            XCTAssertEqual(NSArray(array: row), NSArray(array: expected), "\(target["name"] ?? "?")")
        }
        XCTAssertEqual(rowTargets[1][12] as? [String], ["target_down"])
        XCTAssertEqual((rowTargets[0][13] as? [Any])?.count, 2, "the addresses")
        XCTAssertTrue(rowTargets[2][4] is NSNull, "a pending target has no last result")
        XCTAssertLessThan(rowBytes.readableBytes, try report.encodedJSON(cache: TargetFragmentCache(BriefTargetSnapshot.init)).count)
    }
}
