import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `/v1/export` adds each configured target's labels to its probe rows.
extension ExportRouteTests {
    func testExportOverHTTPCarriesTheConfiguredLabels() async throws {
        let directory = try TemporaryDirectory()
        let store = try await FeedFixtures.seededStore(directory)
        let configuration = try AgentConfiguration(yaml: """
            labels: { site: fra1 }
            targets: [{ name: api, url: "https://api.example.com/" }]
            """, file: "n.yml")
        let states = TargetStates()
        states.configure(configuration.targets.targets)
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: nil),
            state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/export?format=ndjson&kind=probes", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let text = String(buffer: response.body)
                try SchemaValidator.assertValid(text: text, ndjson: true)
                let rows = try text.split(separator: "\n").dropFirst().map {
                    try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                XCTAssertFalse(rows.isEmpty)
                for row in rows {
                    let labels = row["labels"] as? [String: String]
                    XCTAssertEqual(labels, row["target"] as? String == "api" ? ["site": "fra1"] : nil)
                }
                XCTAssertTrue(rows.contains { $0["target"] as? String != "api" }, "the seed has other targets")
            }
        }
        withExtendedLifetime(directory) {}
    }
}
