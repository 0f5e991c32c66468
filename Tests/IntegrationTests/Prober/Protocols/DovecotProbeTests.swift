import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// imap://, imaps://, pop3:// and pop3s:// against a real Dovecot with the test PKI.
final class DovecotProbeTests: ServiceProbeTestCase {
    private var dovecot: ServiceProcess?

    override func setUpWithError() throws {
        dovecot = try ServiceProcess.dovecot(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
    }

    override func tearDown() {
        dovecot?.stop()
        dovecot = nil
    }

    func testIMAPAndPOP3AreTrustedAndPinned() async throws {
        let dovecot = try XCTUnwrap(dovecot)
        for scheme in ["imap", "imaps", "pop3", "pop3s"] {
            try await assertPinnedAndMismatched("\(scheme)://127.0.0.1:\(dovecot.port(scheme))")
        }
        let imap = try await probeService("imap://127.0.0.1:\(dovecot.port("imap"))")
        XCTAssertNotNil(imap.timings.starttls)
        let imaps = try await probeService("imaps://127.0.0.1:\(dovecot.port("imaps"))")
        XCTAssertNil(imaps.timings.starttls, "implicit TLS has no starttls phase")
        XCTAssertNotNil(imaps.timings.processing)
    }

    func testWrongProtocolOnAPortIsAGreetingFailure() async throws {
        let dovecot = try XCTUnwrap(dovecot)
        let result = try await probeService("pop3://127.0.0.1:\(dovecot.port("imap"))")
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
    }
}
