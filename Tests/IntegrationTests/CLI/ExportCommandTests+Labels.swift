import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest

/// `netvigil export --config`: probe rows carry their target's configured labels, from the configuration at export
/// time; the document stays valid against deploy/schemas/export.schema.json.
extension ExportCommandTests {
    func testExportWithConfigAddsTheTargetsLabelsToItsProbeRows() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await Self.seed(db, probes: 6)
        let config = try directory.write("netvigil.yml", """
            storage: { path: \(db) }
            labels: { site: fra1 }
            targets:
              - { name: api, url: "https://api.example.com/", labels: { team: payments } }
            """)
        for format in ["json", "ndjson"] {
            let result = try ProcessRunner.run(["export", "--config", config, "--kind", "probes", "--format", format])
            XCTAssertEqual(result.status, 0, result.stderr)
            try SchemaValidator.assertValid(text: result.stdout, ndjson: format == "ndjson")
            let rows: [[String: Any]]
            if format == "json" {
                let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                rows = try XCTUnwrap(document["probes"] as? [[String: Any]])
            } else {
                rows = try result.stdout.split(separator: "\n").dropFirst().map {
                    try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
            XCTAssertEqual(rows.count, 6)
            for row in rows {
                if row["target"] as? String == "api" {
                    XCTAssertEqual(row["labels"] as? [String: String], ["site": "fra1", "team": "payments"], format)
                } else {
                    // "web" is no longer configured: no labels are made up for it.
                    XCTAssertNil(row["labels"], format)
                }
            }
        }
        // --db knows no configuration: rows as stored.
        let plain = try ProcessRunner.run(["export", "--db", db, "--kind", "probes"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stdout.contains("\"labels\""))
    }
}
