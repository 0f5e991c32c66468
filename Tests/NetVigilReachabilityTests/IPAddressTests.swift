import NetVigilReachability
import XCTest

/// `IPAddress` keeps its bytes inline; parsing, bytes, text, ordering and equality must not change.
final class IPAddressTests: XCTestCase {
    func testRoundTripsThroughBytesAndText() throws {
        for text in ["10.77.0.2", "0.0.0.0", "255.255.255.255", "192.0.2.10", "::", "::1", "2001:db8:77::2",
                     "fe80::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::ffff:10.0.0.1"] {
            let address = try XCTUnwrap(IPAddress(text), text)
            XCTAssertEqual(address.description, text)
            XCTAssertEqual(address.bytes.count, address.family.byteCount)
            XCTAssertEqual(IPAddress(family: address.family, bytes: address.bytes), address)
            XCTAssertEqual(IPAddress(address.description), address)
        }
        XCTAssertEqual(IPAddress("10.77.0.2")?.bytes, [10, 77, 0, 2])
        XCTAssertEqual(IPAddress("2001:db8::1")?.bytes, [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1])
        XCTAssertEqual(IPAddress(family: .ipv4, bytes: [10, 0, 0, 1, 99, 99]), IPAddress("10.0.0.1"))
        XCTAssertNil(IPAddress("10.0.0.256"))
        XCTAssertNil(IPAddress("example.com"))
        XCTAssertNil(IPAddress("fe80::1%eth0"))
    }

    func testFamiliesNeverCompareEqual() throws {
        let v4 = try XCTUnwrap(IPAddress("0.0.0.0"))
        let v6 = try XCTUnwrap(IPAddress("::"))
        XCTAssertNotEqual(v4, v6)
        XCTAssertEqual(Set([v4, v6, IPAddress("0.0.0.0")!]).count, 2)
    }

    func testOrderIsFamilyThenBytes() throws {
        let sorted = ["2001:db8::1", "10.0.0.2", "::1", "10.0.0.10", "9.255.255.255", "fe80::1", "2001:db8::"]
            .compactMap(IPAddress.init).sorted()
        XCTAssertEqual(sorted.map(\.description),
                       ["9.255.255.255", "10.0.0.2", "10.0.0.10", "::1", "2001:db8::", "2001:db8::1", "fe80::1"])
    }

    func testLinkLocal() {
        XCTAssertEqual(IPAddress("fe80::1")?.isIPv6LinkLocal, true)
        XCTAssertEqual(IPAddress("febf:ffff::1")?.isIPv6LinkLocal, true)
        XCTAssertEqual(IPAddress("fec0::1")?.isIPv6LinkLocal, false)
        XCTAssertEqual(IPAddress("fe7f::1")?.isIPv6LinkLocal, false)
        XCTAssertEqual(IPAddress("169.254.0.1")?.isIPv6LinkLocal, false)
    }
}
