import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// AFNetworking's AFSecurityPolicyTests ported to OpenSSL and the test PKI. The httpbin.org chain becomes the RSA
/// test chain (leafRSA → interRSA → rootRSA, host www.example.test), the ADN chain becomes the "other CA" chain, and
/// AFNetworking's self-signed NoDomains / foobar.com / AltName certificates become selfNoDomain / selfCommonName /
/// selfAltName. `forDomain:nil` is `host: nil`. The mapping table is in docs/trust.md.
final class AFSecurityPolicyPortTests: XCTestCase {
    let pki = PKI.shared
    let host = "www.example.test"
    var store: TrustStore { try! pki.testStore() }
    var serverTrust: [Certificate] { pki.rsaChain }
    var otherServerTrust: [Certificate] { [pki.leafOther, pki.rootOther] }

    // MARK: Default policy

    func testDefaultPolicyValues() {
        let policy = SecurityPolicy.default
        XCTAssertEqual(policy.pinning, .none)
        XCTAssertFalse(policy.allowInvalidCertificates)
        XCTAssertTrue(policy.validatesDomainName)
        XCTAssertTrue(policy.pinnedCertificates.isEmpty)
        XCTAssertTrue(policy.pins.isEmpty)
    }

    func testDefaultPolicyAllowsValidChainWithoutHost() throws {
        assertTrusted(try judge(.default, serverTrust, host: nil, store: store))
    }

    func testDefaultPolicyAllowsValidChainForItsHost() throws {
        assertTrusted(try judge(.default, serverTrust, host: host, store: store))
    }

    func testDefaultPolicyRefusesSelfSignedWithoutDomain() throws {
        assertUntrusted(try judge(.default, [pki.selfNoDomain], host: nil, store: store), "chainInvalid")
    }

    func testDefaultPolicyRefusesWrongHost() throws {
        assertUntrusted(try judge(.default, serverTrust, host: "apple.com", store: store), "hostnameMismatch")
    }

    func testDefaultPolicyRefusesSelfSigned() throws {
        assertUntrusted(try judge(.default, [pki.selfAltName], host: nil, store: store), "chainInvalid")
    }

    // MARK: Pinned certificates from a directory (certificatesInBundle:)

    func testPinnedCertificatesLoadFromDirectory() throws {
        let dir = pki.path("pinned-bundle")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try pki.leafRSA.der.write(to: URL(fileURLWithPath: dir + "/leaf.cer"))
        try pki.selfCommonName.pem.write(toFile: dir + "/foobar.pem", atomically: true, encoding: .utf8)
        for mode in [SecurityPolicy.PinningMode.publicKey, .certificate] {
            let policy = try SecurityPolicy(pinning: mode, pinnedCertificatePaths: [dir])
            XCTAssertEqual(policy.pinnedCertificates.filter { $0 == pki.leafRSA }.count, 1)
            assertTrusted(try judge(policy, serverTrust, host: host, store: store))
        }
    }

    // MARK: Public-key and certificate pinning (same scenarios for both modes)

    func pinningScenarios(_ mode: SecurityPolicy.PinningMode) throws {
        func policy(_ certificates: [Certificate]) throws -> SecurityPolicy {
            try SecurityPolicy(pinning: mode, pinnedCertificates: certificates)
        }
        // Positive.
        assertTrusted(try judge(policy([pki.leafRSA]), serverTrust, host: nil, store: store))
        assertTrusted(try judge(policy([pki.interRSA]), serverTrust, host: nil, store: store))
        assertTrusted(try judge(policy([pki.rootRSA]), serverTrust, host: nil, store: store))
        assertTrusted(try judge(policy([pki.leafRSA, pki.interRSA, pki.rootRSA]), serverTrust, host: nil, store: store))
        assertTrusted(try judge(policy([pki.leafRSA, pki.selfCommonName]), serverTrust, host: nil, store: store))
        assertTrusted(try judge(policy([pki.leafRSA]), serverTrust, host: host, store: store))
        // Negative.
        XCTAssertThrowsError(try SecurityPolicy(pinning: mode, pinnedCertificates: []))
        let kind = mode == .publicKey ? "publicKeyPinMismatch" : "certificatePinMismatch"
        assertUntrusted(try judge(policy([pki.leafRSA]), otherServerTrust, host: nil, store: store), kind)
        assertUntrusted(try judge(policy([pki.leafRSA]), serverTrust, host: "invaliddomainname.com", store: store), "hostnameMismatch")
        assertUntrusted(try judge(policy([pki.leafRSA, pki.selfCommonName]), otherServerTrust, host: nil, store: store), kind)
    }

    func testPublicKeyPinningScenarios() throws {
        try pinningScenarios(.publicKey)
    }

    func testCertificatePinningScenarios() throws {
        try pinningScenarios(.certificate)
    }

    // MARK: Domain name validation

    func testWithoutDomainValidationWrongHostIsAllowed() throws {
        let policy = try SecurityPolicy(validatesDomainName: false)
        assertTrusted(try judge(policy, serverTrust, host: "invalid.org", store: store))
    }

    func testWithDomainValidationWrongHostIsRefused() throws {
        assertUntrusted(try judge(.default, serverTrust, host: "invalid.org", store: store), "hostnameMismatch")
    }

    func testSelfSignedCommonNameCertificateWithPublicKeyPinAndAllowInvalid() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.selfCommonName])
        assertTrusted(try judge(policy, [pki.selfCommonName], host: "foobar.test", store: store))
    }

    func testSelfSignedAltNameCertificateWithPublicKeyPinAndAllowInvalid() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName])
        assertTrusted(try judge(policy, [pki.selfAltName], host: "foobar.test", store: store))
    }

    func testCertificatePinnedSelfSignedWithoutDomainIsRefusedForHost() throws {
        let policy = try SecurityPolicy(pinning: .certificate, allowInvalidCertificates: true, pinnedCertificates: [pki.selfNoDomain])
        assertUntrusted(try judge(policy, [pki.selfNoDomain], host: "foobar.test", store: store), "hostnameMismatch")
    }

    // MARK: Self-signed certificates

    func testAllowInvalidWithoutDomainValidationAllowsSelfSigned() throws {
        let policy = try SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)
        let evaluation = try judge(policy, [pki.selfAltName], host: "foobar.test", store: store)
        assertTrusted(evaluation)
        XCTAssertEqual(evaluation.notices.map(\.kind), ["invalidChainAllowed"])
    }

    func testAllowInvalidWithDomainValidationAndNoPinningIsALoadError() {
        // AFNetworking: allowed at configuration, then every evaluation failed with a log line.
        XCTAssertThrowsError(try SecurityPolicy(allowInvalidCertificates: true))
        XCTAssertThrowsError(try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true))
        XCTAssertThrowsError(try SecurityPolicy(allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName]))
    }

    // MARK: NSCopying / NSCoding → value semantics and Codable

    func testPolicyCodableRoundTrip() throws {
        let policy = try SecurityPolicy(pinning: .certificate, allowInvalidCertificates: true, validatesDomainName: false,
                                        pinnedCertificates: [pki.leafRSA], pins: [pki.rootEC.spkiPin], reportOnly: true,
                                        pinsExpire: Date.utc("2030-01-01T00:00:00Z"))
        let copy = policy
        XCTAssertEqual(copy, policy)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(SecurityPolicy.self, from: encoder.encode(policy))
        XCTAssertEqual(decoded, policy)
        XCTAssertEqual(decoded.pinnedCertificates, [pki.leafRSA])
    }
}
