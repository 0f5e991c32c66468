import Foundation
import GRDB
import NetVigilProbeModel
import NetVigilTestSupport
import XCTest
@testable import NetVigilStore

/// Schema v4: the `proxy` and `revocation` phases and the served chain's findings are stored, exported (schema-valid,
/// in `netvigil probe --json`'s key order), aggregated into timing buckets, and a v2 database migrates.
final class ProbeFindingsStoreTests: XCTestCase {
    private static let finding = TrustFinding(code: "w_sub_cert_cn_not_in_san", certificate: 0,
                                              message: "the CN is not one of the SANs (BR 7.1.4.2.2)")

    private static func probe(_ index: Int, findings: [TrustFinding]?) -> ProbeRecord {
        var record = Fixtures.probe(index)
        record.timings.proxy = 1.5
        record.timings.revocation = 12.25
        record.findings = findings
        return record
    }

    private func exportedProbes(_ store: Store) throws -> (text: String, probes: [[String: Any]]) {
        let output = MemoryOutput()
        _ = try HistoryExporter(store: store, version: "t").export(ExportQuery(kinds: [.probes]), format: .json, to: output)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.string.utf8)) as? [String: Any])
        return (output.string, try XCTUnwrap(document["probes"] as? [[String: Any]]))
    }

    func testFindingsAndNewPhasesAreStoredAndExported() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let records = [Self.probe(1, findings: [Self.finding]), Self.probe(2, findings: []), Self.probe(3, findings: nil)]
        try await store.write(WriteBatch(probes: records))

        let stored = try store.read { db in try String?.fetchAll(db, sql: "SELECT findings FROM probe_results ORDER BY id") }
        XCTAssertEqual(stored[1], "[]", "a judged chain without findings")
        XCTAssertNil(stored[2], "no trust verdict, no findings")

        let (text, probes) = try exportedProbes(store)
        try SchemaValidator.assertValid(text: text, ndjson: false)
        let findings = try XCTUnwrap(probes[0]["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.count, 1)
        XCTAssertEqual(findings[0]["code"] as? String, "w_sub_cert_cn_not_in_san")
        XCTAssertEqual(findings[0]["severity"] as? String, "warning")
        XCTAssertEqual(findings[0]["certificate"] as? Int, 0)
        XCTAssertEqual(findings[0]["message"] as? String, Self.finding.message)
        XCTAssertEqual((probes[1]["findings"] as? [Any])?.count, 0)
        XCTAssertTrue(probes[2]["findings"] is NSNull)
        let timings = try XCTUnwrap(probes[0]["timings_ms"] as? [String: Any])
        XCTAssertEqual(timings["proxy"] as? Double, 1.5)
        XCTAssertEqual(timings["revocation"] as? Double, 12.25)
        XCTAssertTrue(text.contains(#""connect":0.500,"proxy":1.500,"tls":3.250,"revocation":12.250,"processing""#),
                      "phases in request order, as netvigil probe --json writes them")
        XCTAssertTrue(text.contains(#""findings":[{"code":"w_sub_cert_cn_not_in_san","severity":"warning","certificate":0,"#),
                      "finding keys in probe --json's order")
        let validatedEnd = try XCTUnwrap(text.range(of: "\"validated_chain\":"))
        let findingsKey = try XCTUnwrap(text.range(of: "\"findings\":", range: validatedEnd.upperBound..<text.endIndex))
        let detailsKey = try XCTUnwrap(text.range(of: "\"details\":", range: findingsKey.upperBound..<text.endIndex))
        XCTAssertLessThan(findingsKey.lowerBound, detailsKey.lowerBound, "findings after validated_chain, before details")

        // The feed's event objects are the export rows without id.
        for (index, record) in records.enumerated() {
            var row = probes[index]
            row["id"] = nil
            let event = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ExportRowJSON.probe(record))) as? [String: Any])
            XCTAssertEqual(NSDictionary(dictionary: row), NSDictionary(dictionary: event), "row \(index + 1)")
        }
    }

    func testFindingsAreBounded() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let long = TrustFinding(code: "w_long", certificate: 1, message: String(repeating: "é", count: 2_000))
        let record = Self.probe(1, findings: Array(repeating: long, count: 40))
        XCTAssertTrue(record.exceedsBounds)
        try await store.write(WriteBatch(probes: [record]))
        let (text, probes) = try exportedProbes(store)
        try SchemaValidator.assertValid(text: text, ndjson: false)
        let findings = try XCTUnwrap(probes[0]["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.count, ProbeRecord.Bounds.findings)
        for finding in findings {
            let message = try XCTUnwrap(finding["message"] as? String)
            XCTAssertLessThanOrEqual(message.utf8.count, ProbeRecord.Bounds.findingMessageBytes)
            XCTAssertTrue(message.hasSuffix(ProbeRecord.Bounds.marker))
        }
    }

    func testTimingBucketsHaveTheProxyAndRevocationPhases() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        var plain = Self.probe(1, findings: nil)
        plain.timings.proxy = nil
        plain.timings.revocation = nil
        try await store.write(WriteBatch(probes: [Self.probe(0, findings: []), plain]))
        let window = Store.BucketWindow(endingAt: Fixtures.base.adding(.seconds(60)), widthMilliseconds: 3_600_000, count: 1)
        let buckets = try await store.timingBuckets(target: "api", window: window)
        XCTAssertEqual(buckets[0].count, 2)
        XCTAssertEqual(buckets[0].phases["proxy"], Store.PhaseStatistic(average: 1.5, max: 1.5), "over the probes that had it")
        XCTAssertEqual(buckets[0].phases["revocation"], Store.PhaseStatistic(average: 12.25, max: 12.25))
        XCTAssertEqual(Store.timingPhases, ["resolve", "connect", "proxy", "tls", "revocation", "processing", "transfer", "total"])
    }

    /// A schema-v2 database with one result, as netvigil wrote it before findings and the new phases were kept; its path.
    private func makeVersion2Database(at path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v2")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO probe_results (time_ms, target, outcome, connect_ms, tls_ms, total_ms, trust_verdict)
                VALUES (\(Fixtures.base.milliseconds), 'old', 'ok', 1.0, 2.0, 4.0, 'trusted')
                """)
        }
        return path
    }

    func testVersion2DatabaseGainsTheColumnsAndItsRowsExportWithNulls() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: try makeVersion2Database(at: directory.path("v2.sqlite")))
        XCTAssertEqual(try store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") },
                       ["v1", "v2", "v3", "v4", "v5"])
        try await store.write(WriteBatch(probes: [Self.probe(5, findings: [Self.finding])]))

        let (text, probes) = try exportedProbes(store)
        try SchemaValidator.assertValid(text: text, ndjson: false)
        XCTAssertEqual(probes.count, 2)
        let old = try XCTUnwrap(probes.first { ($0["target"] as? String) == "old" })
        let oldTimings = try XCTUnwrap(old["timings_ms"] as? [String: Any])
        XCTAssertTrue(oldTimings["proxy"] is NSNull)
        XCTAssertTrue(oldTimings["revocation"] is NSNull)
        XCTAssertEqual(oldTimings["tls"] as? Double, 2)
        XCTAssertTrue(old["findings"] is NSNull, "stored before v4: not known")
        let new = try XCTUnwrap(probes.first { ($0["target"] as? String) == "api" })
        XCTAssertEqual((new["findings"] as? [Any])?.count, 1)
        XCTAssertEqual((new["timings_ms"] as? [String: Any])?["revocation"] as? Double, 12.25)
    }
}
