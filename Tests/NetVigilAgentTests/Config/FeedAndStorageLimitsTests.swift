import XCTest
@testable import NetVigilAgent

/// The resource limits of `feed:` and `storage:`: defaults, overrides, and the combinations refused at load.
final class FeedAndStorageLimitsTests: XCTestCase {
    func testDefaults() throws {
        let configuration = try AgentConfiguration(yaml: "", file: "n.yml")
        XCTAssertEqual(configuration.feed.maxConnections, 512)
        XCTAssertEqual(configuration.feed.idleTimeout, .seconds(10))
        XCTAssertEqual(configuration.feed.maxEventSubscribers, 256)
        XCTAssertEqual(configuration.storage.maxQueuedRows, 10_000)
    }

    func testOverrides() throws {
        let configuration = try AgentConfiguration(yaml: """
            feed: { max_connections: 2000, idle_timeout: 30s, max_event_subscribers: 1000 }
            storage: { max_queued_rows: 50000 }
            """, file: "n.yml")
        XCTAssertEqual(configuration.feed.maxConnections, 2_000)
        XCTAssertEqual(configuration.feed.idleTimeout, .seconds(30))
        XCTAssertEqual(configuration.feed.maxEventSubscribers, 1_000)
        XCTAssertEqual(configuration.storage.maxQueuedRows, 50_000)
    }

    func testEventStreamsMustLeaveRoomForOtherRequests() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { max_connections: 100, max_event_subscribers: 100 }",
                                                    file: "n.yml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("n.yml:1:"), "\(error)")
            XCTAssertTrue("\(error)".contains("must be below max_connections"), "\(error)")
        }
    }

    func testOutOfRangeValuesAreLocated() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { max_connections: 2 }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("feed.max_connections"), "\(error)")
        }
        XCTAssertThrowsError(try AgentConfiguration(yaml: "storage: { max_queued_rows: 5 }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("storage.max_queued_rows"), "\(error)")
        }
    }
}
