import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// smtp://, submission:// and smtps:// against a real Postfix with the test PKI.
final class PostfixProbeTests: ServiceProbeTestCase {
    private var postfix: ServiceProcess?

    override func setUpWithError() throws {
        postfix = try ServiceProcess.postfix(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
    }

    override func tearDown() {
        postfix?.stop()
        postfix = nil
    }

    func testSTARTTLSIsTrustedAndPinned() async throws {
        let port = try XCTUnwrap(postfix).port("smtp")
        try await assertPinnedAndMismatched("smtp://127.0.0.1:\(port)")
        try await assertPinnedAndMismatched("submission://127.0.0.1:\(port)")
        let result = try await probeService("smtp://127.0.0.1:\(port)")
        XCTAssertNotNil(result.timings.starttls)
        XCTAssertEqual(result.tls?.alpn, nil)
        // Postfix logged the whole exchange: EHLO twice, STARTTLS, QUIT, nothing else.
        let deadline = Date().addingTimeInterval(5)
        while !(postfix?.log.contains("ehlo=2 starttls=1 quit=1 commands=4") ?? false), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertTrue(postfix?.log.contains("ehlo=2 starttls=1 quit=1 commands=4") ?? false, postfix?.log ?? "")
    }

    func testImplicitTLSIsTrustedAndPinned() async throws {
        let port = try XCTUnwrap(postfix).port("smtps")
        try await assertPinnedAndMismatched("smtps://127.0.0.1:\(port)")
        try await assertPinnedAndMismatched("tls://127.0.0.1:\(port)")
    }

    func testSMTPOnTheImplicitPortTimesOutWaitingForTheGreeting() async throws {
        let port = try XCTUnwrap(postfix).port("smtps")
        let result = try await probeService("smtp://127.0.0.1:\(port)", timeout: 2)
        XCTAssertEqual(result.error?.kind, .timeout, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.phase, "starttls")
    }

    func testCLIProbeAndPin() throws {
        let port = try XCTUnwrap(postfix).port("smtp")
        let leafPin = try XCTUnwrap(Certificate.load(contentsOf: pki.path("ca-leaf.crt")).first).spkiPin.description
        let probe = try ProcessRunner.run(["probe", "--json", "--ca", pki.path("ca.crt"), "--no-system-roots", "--pinning", "publicKey",
                                           "--pin", leafPin, "--pin", "sha256/" + String(repeating: "A", count: 43) + "=",
                                           "submission://127.0.0.1:\(port)"])
        XCTAssertEqual(probe.status, 0, probe.stdout + probe.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["pin_verdict"] as? String, "matched")
        XCTAssertEqual((json["details"] as? [String: Any])?["scheme"] as? String, "submission")
        XCTAssertNotNil((json["details"] as? [String: Any])?["starttls_ms"] as? Double)
        try SchemaValidator.assertValid(text: probe.stdout, schema: "probe-result")

        let pin = try ProcessRunner.run(["pin", "--json", "smtp://127.0.0.1:\(port)"])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        XCTAssertTrue(pin.stdout.contains(leafPin), pin.stdout)

        let http = try ProcessRunner.run(["probe", "--expect-status", "200", "smtp://127.0.0.1:\(port)"])
        XCTAssertEqual(http.status, 64, http.stderr)
    }
}
