import Foundation
import XCTest
@testable import NetVigilTrust

/// The `webpki` profile judges a trust anchor as a key and a name: no root of Debian's ca-certificates may be refused.
final class SystemRootsTests: XCTestCase {
    func testEverySystemRootAnchorsAChainUnderWebPKI() throws {
        let clones = try SystemRootClone.makeAll()
        XCTAssertGreaterThan(clones.count, 50, "expected Debian's ca-certificates bundle")
        var keyTypes: Set<String> = []
        for clone in clones {
            let store = try TrustStore(systemRoots: false, anchors: [clone.root])
            let evaluation = try judge(.default, clone.chain, host: clone.host, store: store)
            XCTAssertTrue(evaluation.isTrusted, "root \(clone.index) \(clone.subject) (\(clone.keyType)): \(evaluation.message)")
            keyTypes.insert(clone.keyType)
        }
        // Every key type among the roots (RSA 2048/4096, P-256, P-384 on Debian 12) anchored a valid chain.
        XCTAssertGreaterThanOrEqual(keyTypes.count, 3, "\(keyTypes)")
    }

    func testEverySystemRootKeyIsOneTheProfileAccepts() throws {
        let roots = try Certificate.load(contentsOf: "/etc/ssl/certs/ca-certificates.crt")
        XCTAssertGreaterThan(roots.count, 50)
        for root in roots {
            // The anchor's key verifies the intermediate's signature: it must be a key the profile accepts.
            XCTAssertEqual(WebPKIProfile.keyViolations(root, at: 1), [], "\(root.subject)")
        }
    }
}
