import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilAgent

/// The TLS policy keys `revocation` and `crl` in a target's `tls:` and in `tls_policies:` entries.
final class RevocationConfigurationTests: XCTestCase {
    func testRevocationDefaultsToSoftAndCRLFilesLoad() throws {
        let pki = try RevocationPKI(crlBase: "http://127.0.0.1:9/crl")
        let configuration = try AgentConfiguration(yaml: """
            targets:
              - { name: a, url: "https://a.test/" }
              - { name: b, url: "https://b.test/", tls: { revocation: hard, crl: ["\(pki.path("intermediate.crl"))", "\(pki.path("intermediate.der.crl"))"] } }
            tls_policies:
              - { hosts: ["*.cdn.test"], revocation: "off" }
            """, file: "netvigil.yml")
        let targets = configuration.targets.targets
        XCTAssertEqual(targets[0].configuration.policies.policy(for: "a.test").revocation.mode, .soft)
        XCTAssertEqual(targets[0].configuration.policies.policy(for: "img.cdn.test").revocation.mode, .off)
        XCTAssertEqual(targets[1].hostPolicy.policy.revocation.mode, .hard)
        XCTAssertEqual(targets[1].hostPolicy.policy.revocation.crls.count, 2)
    }

    func testBadModeAndBadCRLFileAreLoadErrors() throws {
        XCTAssertThrowsError(try AgentConfiguration(yaml: """
            targets:
              - { name: a, url: "https://a.test/", tls: { revocation: strict } }
            """, file: "netvigil.yml")) { error in
            XCTAssertTrue("\(error)".contains("targets[0].tls.revocation"), "\(error)")
        }
        let directory = try TemporaryDirectory()
        let notACRL = try directory.write("not.crl", "hello")
        XCTAssertThrowsError(try AgentConfiguration(yaml: """
            targets:
              - { name: a, url: "https://a.test/", tls: { crl: \(notACRL) } }
            """, file: "netvigil.yml")) { error in
            XCTAssertTrue("\(error)".contains("is not a CRL"), "\(error)")
        }
    }

    /// One location per line, and the reason in words: a missing CRL, a CRL that is not one, a FIFO as a CA file.
    func testFileErrorsNameTheReasonOnceLocated() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("not.crl", "hello")
        XCTAssertEqual(mkfifo(directory.path("fifo.pem"), 0o600), 0)
        let path = try directory.write("netvigil.yml", """
            targets:
              - { name: a, url: "https://a.test/", tls: { crl: not.crl } }
              - { name: b, url: "https://b.test/", tls: { crl: missing.crl } }
              - { name: c, url: "https://c.test/", tls: { ca: fifo.pem } }
            """)
        XCTAssertThrowsError(try AgentConfiguration.load(path: path)) { error in
            XCTAssertEqual("\(error)", """
                \(path):2:52: targets[0].tls.crl: \(directory.path("not.crl")) is not a CRL (DER or PEM X509 CRL expected)
                \(path):3:52: targets[1].tls.crl: cannot read CRL \(directory.path("missing.crl")): no such file
                \(path):4:51: targets[2].tls.ca: CA file \(directory.path("fifo.pem")): is a FIFO (named pipe), not a regular file
                """)
        }
    }
}
