import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

final class CertificateTests: XCTestCase {
    let pki = PKI.shared

    /// The pin the issue prescribes: openssl x509 -pubkey | openssl pkey -pubin -outform der | dgst -sha256 -binary | base64.
    func opensslPin(_ name: String) throws -> String {
        let script = "\(PKI.openssl) x509 -in '\(pki.path(name + ".pem"))' -pubkey -noout | \(PKI.openssl) pkey -pubin -outform der | \(PKI.openssl) dgst -sha256 -binary | base64"
        let out = try shell("/bin/sh", ["-c", script])
        return "sha256/" + String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testSPKIPinMatchesOpenSSLForRSA() throws {
        XCTAssertEqual(pki.leafRSA.spkiPin.description, try opensslPin("leafRSA"))
        XCTAssertEqual(pki.rootRSA.spkiPin.description, try opensslPin("rootRSA"))
    }

    func testSPKIPinMatchesOpenSSLForECDSAP256() throws {
        XCTAssertEqual(pki.leafEC.spkiPin.description, try opensslPin("leafEC"))
    }

    func testSPKIPinMatchesOpenSSLForEd25519() throws {
        XCTAssertEqual(pki.selfEd25519.spkiPin.description, try opensslPin("selfEd25519"))
    }

    func testRenewedLeafKeepsPinButNotFingerprint() {
        XCTAssertEqual(pki.leafRSA.spkiPin, pki.leafRSARenewed.spkiPin)
        XCTAssertNotEqual(pki.leafRSA.sha256Fingerprint, pki.leafRSARenewed.sha256Fingerprint)
        XCTAssertNotEqual(pki.leafRSA, pki.leafRSARenewed)
    }

    func testFingerprintIsSHA256OfDER() throws {
        let script = "\(PKI.openssl) x509 -in '\(pki.path("leafEC.pem"))' -outform der | sha256sum"
        let out = String(decoding: try shell("/bin/sh", ["-c", script]), as: UTF8.self)
        XCTAssertEqual(pki.leafEC.sha256Fingerprint, String(out.prefix(64)))
    }

    func testFieldsOfRSALeaf() throws {
        let leaf = pki.leafRSA
        XCTAssertEqual(leaf.subject, "CN=www.example.test,O=NetVigil Tests")
        XCTAssertEqual(leaf.issuer, "CN=NetVigil Test Intermediate RSA,O=NetVigil Tests")
        XCTAssertEqual(leaf.commonName, "www.example.test")
        XCTAssertEqual(leaf.subjectAlternativeNames, [.dns("www.example.test"), .dns("example.test")])
        XCTAssertEqual(leaf.publicKey.algorithm, "RSA")
        XCTAssertEqual(leaf.publicKey.bits, 2048)
        XCTAssertEqual(leaf.signatureAlgorithm, "sha256WithRSAEncryption")
        XCTAssertFalse(leaf.isCA)
        XCTAssertTrue(pki.interRSA.isCA)
        XCTAssertTrue(pki.rootRSA.isSelfIssued)
        XCTAssertFalse(leaf.isSelfIssued)
        let serial = String(decoding: try shell(PKI.openssl, ["x509", "-in", pki.path("leafRSA.pem"), "-noout", "-serial"]), as: UTF8.self)
        XCTAssertEqual("serial=" + leaf.serialNumber, serial.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(leaf.notAfter.timeIntervalSince(leaf.notBefore), 365 * 86400, accuracy: 1)
        XCTAssertEqual(leaf.notBefore.timeIntervalSinceNow, 0, accuracy: 3600)
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

    func testLoadsDERPEMAndBundles() throws {
        let der = pki.path("leaf.der")
        try shell(PKI.openssl, ["x509", "-in", pki.path("leafRSA.pem"), "-outform", "der", "-out", der])
        XCTAssertEqual(try Certificate.load(contentsOf: der), [pki.leafRSA])
        XCTAssertEqual(try Certificate.load(contentsOf: pki.path("chain-rsa.pem")), [pki.leafRSA, pki.interRSA])
        // A bundle with a private key and text around blocks: only certificates are taken.
        let mixed = "leading text\n" + (try String(contentsOfFile: pki.path("leafEC.key"), encoding: .utf8)) + pki.leafEC.pem
        XCTAssertEqual(try Certificate.parsePEM(mixed), [pki.leafEC])
        // PEM round trip.
        XCTAssertEqual(try Certificate.parsePEM(pki.leafEC.pem), [pki.leafEC])
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
