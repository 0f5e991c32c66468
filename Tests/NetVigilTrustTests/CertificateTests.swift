import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// Certificate parsing and pins, in process. The cross-checks against the openssl CLI (pins, fingerprints, serials,
/// DER it writes) are IntegrationTests' CertificateOpenSSLTests.
final class CertificateTests: XCTestCase {
    let pki = PKI.shared

    func testRenewedLeafKeepsPinButNotFingerprint() {
        XCTAssertEqual(pki.leafRSA.spkiPin, pki.leafRSARenewed.spkiPin)
        XCTAssertNotEqual(pki.leafRSA.sha256Fingerprint, pki.leafRSARenewed.sha256Fingerprint)
        XCTAssertNotEqual(pki.leafRSA, pki.leafRSARenewed)
    }

    func testFixedDatesAreParsedInUTC() {
        XCTAssertEqual(pki.expiredLeaf.notBefore, Date.utc("2020-01-01T00:00:00Z"))
        XCTAssertEqual(pki.expiredLeaf.notAfter, Date.utc("2021-01-01T00:00:00Z"))
        XCTAssertEqual(pki.notYetValidLeaf.notAfter, Date.utc("2041-01-01T00:00:00Z"))
    }

    func testFieldsOfECLeafWithWildcardAndIPAddresses() {
        let leaf = pki.leafEC
        XCTAssertEqual(leaf.subjectAlternativeNames, [.dns("*.wild.example.test"), .ip("127.0.0.1"), .ip("::1")])
        XCTAssertEqual(leaf.publicKey.algorithm, "EC")
        XCTAssertEqual(leaf.publicKey.curve, "P-256")
        XCTAssertEqual(leaf.publicKey.bits, 256)
        XCTAssertEqual(leaf.signatureAlgorithm, "ecdsa-with-SHA256")
    }

    func testEd25519Key() {
        XCTAssertEqual(pki.selfEd25519.publicKey.algorithm, "Ed25519")
        XCTAssertEqual(pki.selfEd25519.signatureAlgorithm, "ED25519")
    }

    func testPresentedNamesFallBackToCommonNameWithoutDNSNames() {
        XCTAssertEqual(pki.selfCommonName.presentedNames, ["foobar.test"])
        XCTAssertEqual(pki.selfAltName.presentedNames, ["foobar.test"])
    }

    func testLoadsDirectoriesOfCertificates() throws {
        let sub = pki.path("pinned-dir")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        try pki.interRSA.der.write(to: URL(fileURLWithPath: sub + "/b-inter.cer"))
        try pki.rootRSA.pem.write(toFile: sub + "/a-root.crt", atomically: true, encoding: .utf8)
        try "not a certificate".write(toFile: sub + "/README.txt", atomically: true, encoding: .utf8)
        XCTAssertEqual(try Certificate.load(paths: [sub]), [pki.rootRSA, pki.interRSA])
    }

    func testRejectsGarbageWithNamedSource() {
        XCTAssertThrowsError(try Certificate.parse(Data("hello".utf8), source: "x.pem")) { error in
            XCTAssertEqual(error as? CertificateError, .invalidDER("x.pem"))
        }
        var der = pki.leafRSA.der
        der.append(0)
        XCTAssertThrowsError(try Certificate(der: der, source: "trailing"))
        XCTAssertThrowsError(try Certificate(der: Data(pki.leafRSA.der.prefix(100))))
        XCTAssertThrowsError(try Certificate.parsePEM("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")) { error in
            XCTAssertEqual(error as? CertificateError, .invalidPEM("input"))
        }
        XCTAssertThrowsError(try Certificate.parsePEM("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")) { error in
            XCTAssertEqual(error as? CertificateError, .noCertificates("input"))
        }
        XCTAssertThrowsError(try Certificate.load(contentsOf: "/nonexistent/x.pem")) { error in
            XCTAssertEqual(error as? CertificateError, .unreadable(path: "/nonexistent/x.pem", reason: "no such file"))
        }
    }

    /// A file that exists but cannot be read (even by root: reading a process's memory at address 0 fails with EIO)
    /// is reported with the reason the read gave, not as a file with no certificates.
    func testUnreadableFileNamesTheReason() {
        XCTAssertThrowsError(try Certificate.load(contentsOf: "/proc/self/mem")) { error in
            guard case .unreadable(let path, let reason)? = error as? CertificateError else {
                return XCTFail("want unreadable, got \(error)")
            }
            XCTAssertEqual(path, "/proc/self/mem")
            XCTAssertTrue(reason.hasPrefix("cannot be read ("), reason)
        }
    }

    func testPinParsing() throws {
        let pin = pki.leafRSA.spkiPin
        XCTAssertEqual(try SPKIPin(parsing: pin.description), pin)
        let base64 = pin.digest.base64EncodedString()
        XCTAssertEqual(try SPKIPin(parsing: "pin-sha256=\"\(base64)\""), pin)
        XCTAssertThrowsError(try SPKIPin(parsing: "sha1/" + base64))
        XCTAssertThrowsError(try SPKIPin(parsing: "sha256/not*base64"))
        XCTAssertThrowsError(try SPKIPin(parsing: "sha256/" + Data(count: 20).base64EncodedString())) { error in
            XCTAssertTrue("\(error)".contains("20 bytes"))
        }
    }

    func testCodableForms() throws {
        let data = try JSONEncoder().encode([pki.leafEC])
        XCTAssertEqual(try JSONDecoder().decode([Certificate].self, from: data), [pki.leafEC])
        let pins = try JSONDecoder().decode([SPKIPin].self, from: JSONEncoder().encode([pki.leafEC.spkiPin]))
        XCTAssertEqual(pins, [pki.leafEC.spkiPin])
    }
}
