import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// An untrusted server never receives a request byte: `openssl s_server` records every application byte it gets.
final class UntrustedServerTests: ProbeTestCase {
    private var server: RecordingTLSServer?

    override func tearDown() {
        server?.stop()
        server = nil
    }

    /// Control: with the right CA the same server does receive the request (so the zero-byte checks can fail).
    func testTrustedServerReceivesTheRequest() async throws {
        let server = try RecordingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        self.server = server
        let result = try await probe("https://localhost:\(server.port)/secret-path", configuration: configuration(timeout: 1))
        XCTAssertEqual(result.error?.kind, .timeout, "s_server never answers")
        XCTAssertEqual(result.error?.phase, "processing")
        XCTAssertTrue(server.stopAndCollect().contains("GET /secret-path HTTP/1.1"))
    }

    func testWrongCAServerReceivesZeroBytes() async throws {
        let server = try RecordingTLSServer(certificate: pki.path("other-leaf.crt"), key: pki.path("other-leaf.key"))
        self.server = server
        let result = try await probe("https://localhost:\(server.port)/secret-path", configuration: configuration(timeout: 3))
        XCTAssertEqual(result.error?.kind, .trust)
        XCTAssertEqual(result.trustVerdict, .untrusted(reason: "chainInvalid"))
        XCTAssertEqual(server.stopAndCollect(), "")
    }

    func testPinMismatchServerReceivesZeroBytesButReportOnlyContinues() async throws {
        let wrongPin = try SPKIPin(parsing: "sha256/" + Data(repeating: 7, count: 32).base64EncodedString())
        let enforcing = try SecurityPolicy(pinning: .publicKey, pins: [wrongPin])
        let server = try RecordingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        self.server = server
        let result = try await probe("https://localhost:\(server.port)/secret-path",
                                     configuration: configuration(timeout: 3, policy: enforcing))
        XCTAssertEqual(result.error?.kind, .trust)
        XCTAssertEqual(result.pinVerdict, .mismatch)
        XCTAssertEqual(server.stopAndCollect(), "")

        let reportOnly = try SecurityPolicy(pinning: .publicKey, pins: [wrongPin], reportOnly: true)
        let second = try RecordingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        self.server = second
        let reported = try await probe("https://localhost:\(second.port)/secret-path",
                                       configuration: configuration(timeout: 1, policy: reportOnly))
        XCTAssertEqual(reported.pinVerdict, .mismatchReported)
        XCTAssertEqual(reported.error?.kind, .timeout)
        XCTAssertTrue(second.stopAndCollect().contains("GET /secret-path"))
    }
}
