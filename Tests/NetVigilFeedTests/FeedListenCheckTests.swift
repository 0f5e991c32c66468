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
        let listener = try Listener(port: port)
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
        let again = try Listener(port: port)  // the check let the port go
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

/// A TCP listener on 127.0.0.1, bound as servers do (`SO_REUSEADDR`).
private struct Listener {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            Foundation.close(descriptor)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on \(port): \(reason)"])
        }
    }

    func close() {
        Foundation.close(descriptor)
    }
}
