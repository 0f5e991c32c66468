import NIOCore
import XCTest
@testable import NetVigilProber

final class ResolverTests: XCTestCase {
    func testLiteralsNeedNoLookup() throws {
        XCTAssertEqual(try Resolver.literal("127.0.0.1", port: 443, family: .any)?.ipAddress, "127.0.0.1")
        XCTAssertEqual(try Resolver.literal("::1", port: 8443, family: .ipv6)?.port, 8443)
        XCTAssertNil(try Resolver.literal("localhost", port: 443, family: .any), "a name goes to getaddrinfo")
    }

    func testLiteralOfTheWrongFamilyIsADNSError() {
        XCTAssertThrowsError(try Resolver.literal("::1", port: 443, family: .ipv4)) { error in
            XCTAssertEqual((error as? ProbeError)?.kind, .dns)
        }
        XCTAssertThrowsError(try Resolver.literal("192.0.2.1", port: 443, family: .ipv6))
    }

    func testNamesResolveThroughGetaddrinfo() throws {
        let addresses = try Resolver.resolve(host: "localhost", port: 80, family: .ipv4)
        XCTAssertEqual(addresses.first?.ipAddress, "127.0.0.1")
    }
}
