import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// The daemon's check of `feed.listen` before it starts: refuses what the feed's bind would refuse, with a reason
/// an operator can act on, and leaves a free address free.
final class FeedListenCheckTests: XCTestCase {
    func testABusyPortIsRefusedAndAFreeOneStaysFree() async throws {
        let port = ProcessRunner.freePort()
        let listener = try LoopbackListener(port: port)
        do {
            try await FeedListenCheck.check(ListenAddress(host: "127.0.0.1", port: port))
            XCTFail("a port with a listener must be refused")
        } catch {
            XCTAssertEqual(error.description,
                           "feed.listen 127.0.0.1:\(port): address already in use (another process listens there; "
                           + "`ss -tlnp` names it)")
        }
        listener.close()

        try await FeedListenCheck.check(ListenAddress(host: "127.0.0.1", port: port))
        let again = try LoopbackListener(port: port)  // the check let the port go
        again.close()
    }

    func testAnAddressNoInterfaceHasIsRefused() async {
        do {
            try await FeedListenCheck.check(ListenAddress(host: "192.0.2.1", port: 9337))  // TEST-NET-1
            XCTFail("an address of no interface must be refused")
        } catch {
            XCTAssertEqual(error.reason, "address not available: no interface of this host has it")
        }
    }

    func testPortZeroIsAlwaysAccepted() async throws {
        try await FeedListenCheck.check(ListenAddress(host: "127.0.0.1", port: 0))
    }
}
