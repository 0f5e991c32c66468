import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// The public document's `health.problems` say that the store cannot be written, but not where it lives: a store
/// error quotes the database's path, which the token's holders read in `/v1/status` and the public never does.
final class PublicStatusHealthTests: XCTestCase {
    func testAFailingStoreIsNamedWithoutItsPath() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hidden-store-name.sqlite")
        let stateDirectory = directory.path("")
        let store = try Store.open(path: path)
        // A real failing transaction: another connection adds a trigger that fails every probe INSERT with the words
        // of a full disk (SQLite's own error, wrapped by the store with the file's path).
        let trigger = try ProcessRunner.run(["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TRIGGER fail_writes BEFORE INSERT ON probe_results BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
            db.commit()
            """, path], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        XCTAssertEqual(trigger.status, 0, trigger.stderr)
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let running = Task { try await writer.run() }
        writer.submit(WriteBatch(probes: [ProbeRecord(time: .now(), target: "api", outcome: .ok)]))
        XCTAssertTrue(Poll.until(timeout: 10) { writer.health.failure != nil }, "the writer reports the failed transaction")
        XCTAssertTrue(writer.health.failure?.contains(path) == true, "the store's error names its file: \(writer.health.failure ?? "")")

        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: "targets: [{ name: api, url: \"https://api.example.com/\" }]",
                                                file: "t.yml").targets.targets)
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("t0ken"),
                                             publicStatus: true),
            state: FeedState(store: store, targets: states, health: DaemonHealth(scheduler: nil, writer: writer)),
            logger: Logger(label: "test"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/public/status", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let text = String(buffer: response.body)
                XCTAssertFalse(text.contains("hidden-store-name"), "the public document quotes the store's path: \(text)")
                XCTAssertFalse(text.contains(stateDirectory), "the public document quotes the state directory: \(text)")
                let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                let health = try XCTUnwrap(body["health"] as? [String: Any], text)
                XCTAssertEqual(health["healthy"] as? Bool, false)
                XCTAssertEqual(health["problems"] as? [String], ["store not writable"])
            }
            // The operator's document keeps the whole error.
            try await client.execute(uri: "/v1/status", method: .get, headers: [.authorization: "Bearer t0ken"]) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertTrue(String(buffer: response.body).contains("hidden-store-name.sqlite"), String(buffer: response.body))
            }
        }
        writer.close()
        running.cancel()
        _ = try? await running.value
        withExtendedLifetime(directory) {}
    }
}
