import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// Certificate fields and pins checked against the openssl CLI (the system tier: it runs openssl). The rest of the
/// certificate tests are NetVigilTrustTests' CertificateTests, in process.
final class CertificateOpenSSLTests: XCTestCase {
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
}
