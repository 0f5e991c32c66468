import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// A server that completes the TLS handshake and closes at once (a python3 `ssl` server, so the system tier):
/// the probe ends at once with a typed error, not at the timeout. The in-process hostile responses are
/// NetVigilProberTests' HostileServerTests.
final class HandshakeThenCloseTests: ProbeTestCase {
    func testCloseRightAfterTheHandshake() async throws {
        for graceful in [true, false] {
            let server = try HandshakeThenCloseServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"),
                                                      graceful: graceful)
            defer { server.stop() }
            let start = Date()
            let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration(timeout: 3))
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "a closed connection must end the probe at once")
            XCTAssertEqual(result.error?.kind, .httpProtocol, "graceful \(graceful): \(String(describing: result.error))")
            XCTAssertEqual(result.trustVerdict, .trusted, "the handshake completed and the chain was evaluated")
            XCTAssertNotNil(result.timings.tls)
            XCTAssertNil(result.status)
        }
    }
}
