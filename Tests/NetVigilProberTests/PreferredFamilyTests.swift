import NIOCore
import XCTest
@testable import NetVigilProber

final class PreferredFamilyTests: XCTestCase {
    private let addresses = try! ["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2"].map {
        try SocketAddress(ipAddress: $0, port: 443)
    }

    private func order(_ preference: PreferredFamily) -> [String] {
        preference.ordered(addresses, isIPv6: { $0.protocol == .inet6 }).map { $0.ipAddress ?? "?" }
    }

    func testSystemKeepsGetaddrinfoOrder() {
        XCTAssertEqual(order(.system), ["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2"])
    }

    func testPreferredFamilyGoesFirstKeepingOrderWithinEachFamily() {
        XCTAssertEqual(order(.ipv4), ["192.0.2.1", "192.0.2.2", "2001:db8::1", "2001:db8::2"])
        XCTAssertEqual(order(.ipv6), ["2001:db8::1", "2001:db8::2", "192.0.2.1", "192.0.2.2"])
    }
}
