import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// ldap:// (StartTLS extended operation) and ldaps:// against a real OpenLDAP slapd with the test PKI.
final class SlapdProbeTests: ServiceProbeTestCase {
    func testStartTLSAndLDAPSAreTrustedAndPinned() async throws {
        let slapd = try ServiceProcess.slapd(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        defer { slapd.stop() }
        try await assertPinnedAndMismatched("ldap://127.0.0.1:\(slapd.port("ldap"))")
        try await assertPinnedAndMismatched("ldaps://127.0.0.1:\(slapd.port("ldaps"))")
        let result = try await probeService("ldap://127.0.0.1:\(slapd.port("ldap"))")
        XCTAssertNotNil(result.timings.starttls)
        // `netvigil pin ldap://` lists the live chain's pins, as `pin https://` does.
        let leafPin = try XCTUnwrap(result.servedChain.first).spkiPin
        let pin = try ProcessRunner.run(["pin", "--json", "ldap://127.0.0.1:\(slapd.port("ldap"))"])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        XCTAssertTrue(pin.stdout.contains(leafPin), pin.stdout)
    }

    func testStartTLSWithoutACertificateIsStarttlsUnavailable() async throws {
        let slapd = try ServiceProcess.slapd(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"), tls: false)
        defer { slapd.stop() }
        let result = try await probeService("ldap://127.0.0.1:\(slapd.port("ldap"))")
        XCTAssertEqual(result.error?.kind, .starttlsUnavailable, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("resultCode") ?? false, "\(String(describing: result.error))")
    }
}
