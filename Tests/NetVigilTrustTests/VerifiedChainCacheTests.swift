import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// A store remembers successful verifications; what it answers from memory must equal a fresh verification.
final class VerifiedChainCacheTests: XCTestCase {
    let pki = PKI.shared
    let host = "www.example.test"

    func testRepeatedChainIsAnsweredFromTheCacheWithTheSameVerdict() throws {
        let store = try pki.testStore()
        let first = try judge(.default, pki.rsaChain, host: host, store: store)
        let second = try judge(.default, pki.rsaChain, host: host, store: store)
        assertTrusted(first)
        assertTrusted(second)
        XCTAssertEqual(second.validatedChain, first.validatedChain)
        XCTAssertEqual(second.validatedChain, [pki.leafRSA, pki.interRSA, pki.rootRSA])
        XCTAssertEqual(second.message, first.message)
        XCTAssertEqual(store.verifiedChains.statistics.hits, 1)
        XCTAssertEqual(store.verifiedChains.statistics.misses, 1)
    }

    func testCachedSuccessDoesNotOutliveTheValidityPeriod() throws {
        let store = try pki.testStore()
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
        let later = pki.leafRSA.notAfter.addingTimeInterval(86400)
        assertChainInvalid(try judge(.default, pki.rsaChain, host: host, at: later, store: store),
                           code: VerifyError.certificateExpired, depth: 0)
        // Before the leaf's period (the CAs' too: OpenSSL may name either).
        let earlier = pki.leafRSA.notBefore.addingTimeInterval(-86400)
        assertUntrusted(try judge(.default, pki.rsaChain, host: host, at: earlier, store: store), "chainInvalid")
        // Back inside the period: answered from the cache again.
        let hits = store.verifiedChains.statistics.hits
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
        XCTAssertEqual(store.verifiedChains.statistics.hits, hits + 1)
    }

    func testOtherHostOrOtherChainIsVerifiedAgain() throws {
        let store = try pki.testStore()
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
        assertUntrusted(try judge(.default, pki.rsaChain, host: "evil.example.test", store: store), "hostnameMismatch")
        assertChainInvalid(try judge(.default, [pki.expiredLeaf, pki.interRSA], host: host, store: store),
                           code: VerifyError.certificateExpired, depth: 0)
        // The leaf alone (intermediate not served) cannot reach the root, although leaf + intermediate could.
        assertChainInvalid(try judge(.default, [pki.leafRSA], host: host, store: store),
                           code: VerifyError.unableToGetIssuerLocally, depth: 0)
        XCTAssertEqual(store.verifiedChains.statistics.hits, 0)
    }

    func testFailuresAreNeverCached() throws {
        let store = try pki.testStore()
        for _ in 0..<3 {
            assertUntrusted(try judge(.default, pki.rsaChain, host: "evil.example.test", store: store), "hostnameMismatch")
        }
        XCTAssertEqual(store.verifiedChains.statistics.hits, 0)
        XCTAssertEqual(store.verifiedChains.statistics.misses, 3)
    }

    func testEachStoreHasItsOwnCache() throws {
        let trusting = try pki.testStore()
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: trusting))
        let system = try TrustStore.system()
        assertChainInvalid(try judge(.default, pki.rsaChain, host: host, store: system),
                           code: VerifyError.unableToGetIssuerLocally, depth: 1)
    }

    func testStoreThatDoesNotRememberVerifiesEveryTime() throws {
        let store = try TrustStore(systemRoots: false, caPaths: [pki.path("test-roots.pem")], remembersVerifications: false)
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
        XCTAssertEqual(store.verifiedChains.statistics.hits, 0)
    }
}
