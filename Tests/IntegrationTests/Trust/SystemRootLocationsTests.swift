import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// System roots are read from the hashed directory by subject; the bundle is parsed only when a verification fails
/// without it, and the outcome is then the bundle's.
final class SystemRootLocationsTests: XCTestCase {
    func testTheBundleIsParsedOnlyWhenTheDirectoryDoesNotAnchorTheChain() throws {
        let pki = PKI.shared
        // The directory holds the RSA root (as `update-ca-certificates` lays it out: hash links); the bundle the EC root.
        let directory = pki.path("roots-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try pki.rootRSA.pem.write(toFile: directory + "/rootRSA.pem", atomically: true, encoding: .utf8)
        try shell(PKI.openssl, ["rehash", directory])
        let locations = SystemRootLocations(directory: directory, bundle: pki.path("rootEC.pem"))
        let store = try TrustStore(systemRoots: locations)
        XCTAssertTrue(store.usesSystemRoots)
        XCTAssertFalse(locations.isBundleLoaded, "building the store parses no bundle")

        let rsa = ChainVerifier.verify(chain: pki.rsaChain, store: store, host: nil, at: Date())
        XCTAssertTrue(rsa.isValid, rsa.text)
        XCTAssertEqual(rsa.chain.last?.sha256Fingerprint, pki.rootRSA.sha256Fingerprint)
        XCTAssertFalse(locations.isBundleLoaded, "the directory anchored the chain")

        let ec = ChainVerifier.verify(chain: pki.ecChain, store: store, host: nil, at: Date())
        XCTAssertTrue(ec.isValid, "the bundle's root anchors the chain once loaded: \(ec.text)")
        XCTAssertTrue(locations.isBundleLoaded)

        let other = ChainVerifier.verify(chain: [pki.leafOther], store: store, host: nil, at: Date())
        XCTAssertFalse(other.isValid, "a root in neither location anchors nothing")
        XCTAssertEqual(other.code, 20, other.text)  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
    }

    func testAChainNeitherLocationAnchorsFailsAsItDidWithTheBundleParsedUpFront() throws {
        let pki = PKI.shared
        let empty = pki.path("empty-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let lazy = try TrustStore(systemRoots: SystemRootLocations(directory: empty, bundle: pki.path("test-roots.pem")))
        let eager = try TrustStore(systemRoots: false, caPaths: [pki.path("test-roots.pem")])
        for chain in [pki.rsaChain, pki.ecChain, [pki.leafOther], [pki.expiredLeaf, pki.interRSA]] {
            let fromBundle = ChainVerifier.verify(chain: chain, store: lazy, host: nil, at: Date())
            let upFront = ChainVerifier.verify(chain: chain, store: eager, host: nil, at: Date())
            XCTAssertEqual(fromBundle.isValid, upFront.isValid, "\(chain[0].subject)")
            XCTAssertEqual(fromBundle.code, upFront.code, "\(chain[0].subject): \(fromBundle.text) vs \(upFront.text)")
        }
    }

    func testTheDefaultSystemStoreDefersItsBundle() throws {
        let store = try TrustStore.system()
        let locations = try XCTUnwrap(store.systemRootLocations)
        XCTAssertFalse(locations.isBundleLoaded)
        XCTAssertEqual(locations.directory, nil, "OpenSSL's default directory (SSL_CERT_DIR or OPENSSLDIR/certs)")
        // A chain under a clone of a real root (same name, another key) fails in the directory; the bundle is then read.
        let firstRoot = try XCTUnwrap(Certificate.load(contentsOf: "/etc/ssl/certs/ca-certificates.crt").first)
        let bundle = PKI.shared.path("first-root-\(UUID().uuidString.prefix(8)).pem")
        try firstRoot.pem.write(toFile: bundle, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        let clone = try XCTUnwrap(SystemRootClone.makeAll(bundle: bundle).first)
        let verification = ChainVerifier.verify(chain: clone.chain, store: store, host: nil, at: Date())
        XCTAssertFalse(verification.isValid)
        XCTAssertTrue(locations.isBundleLoaded)
    }
}
