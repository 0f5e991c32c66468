import Foundation
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilTrust

/// The scenarios of issue 4 §6, over the test PKI.
final class ServerTrustEvaluatorTests: XCTestCase {
    let pki = PKI.shared
    let host = "www.example.test"

    func testValidChainAgainstTestCAKeepsServedAndValidatedChains() throws {
        let evaluation = try judge(.default, pki.rsaChain, host: host, store: pki.testStore())
        assertTrusted(evaluation)
        XCTAssertEqual(evaluation.verdict.summary, .trusted)
        XCTAssertEqual(evaluation.pinVerdict, .notPinned)
        XCTAssertEqual(evaluation.servedChain, [pki.leafRSA, pki.interRSA])
        XCTAssertEqual(evaluation.validatedChain, [pki.leafRSA, pki.interRSA, pki.rootRSA])
        XCTAssertFalse(evaluation.pinMismatchReported)
        XCTAssertTrue(evaluation.message.contains("chain validated to CN=NetVigil Test Root RSA"), evaluation.message)
    }

    func testCAFileAndDirectoryLoadIntoTrustStore() throws {
        let fromFile = try TrustStore(systemRoots: false, caPaths: [pki.path("test-roots.pem")])
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: fromFile))
        assertTrusted(try judge(.default, pki.ecChain, host: "a.wild.example.test", store: fromFile))
        let dir = pki.path("ca-dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try pki.rootRSA.pem.write(toFile: dir + "/root.pem", atomically: true, encoding: .utf8)
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: TrustStore(systemRoots: false, caPaths: [dir])))
        XCTAssertThrowsError(try TrustStore(caPaths: ["/nonexistent/ca.pem"])) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/ca.pem"))
        }
    }

    func testSystemRootsOnlyRefuseTheTestCA() throws {
        let evaluation = try judge(.default, pki.rsaChain, host: host, store: TrustStore.system())
        assertChainInvalid(evaluation, code: VerifyError.unableToGetIssuerLocally, depth: 1)
        XCTAssertEqual(evaluation.validatedChain, [])
        XCTAssertEqual(evaluation.pinVerdict, .notPinned)
    }

    func testSystemRootsPlusTestCATrustTheChain() throws {
        let store = try TrustStore(systemRoots: true, caPaths: [pki.path("test-roots.pem")])
        assertTrusted(try judge(.default, pki.rsaChain, host: host, store: store))
    }

    func testExpiredLeaf() throws {
        let evaluation = try judge(.default, [pki.expiredLeaf, pki.interRSA], host: host, store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.certificateExpired, depth: 0)
        XCTAssertTrue(evaluation.message.contains("certificate has expired"), evaluation.message)
        XCTAssertEqual(evaluation.failedSubject, pki.expiredLeaf.subject)
    }

    func testNotYetValidLeaf() throws {
        let evaluation = try judge(.default, [pki.notYetValidLeaf, pki.interRSA], host: host, store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.certificateNotYetValid, depth: 0)
        XCTAssertTrue(evaluation.message.contains("certificate is not yet valid"), evaluation.message)
        XCTAssertEqual(evaluation.failedSubject, pki.notYetValidLeaf.subject)
    }

    func testJudgingAtADateAfterExpiry() throws {
        let later = pki.leafRSA.notAfter.addingTimeInterval(86400)
        let evaluation = try judge(.default, pki.rsaChain, host: host, at: later, store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.certificateExpired, depth: 0)
        XCTAssertEqual(evaluation.evaluatedAt, later)
        assertTrusted(try judge(.default, pki.rsaChain, host: host, at: pki.leafRSA.notAfter.addingTimeInterval(-60), store: pki.testStore()))
    }

    func testWrongHost() throws {
        let evaluation = try judge(.default, pki.rsaChain, host: "evil.example.test", store: pki.testStore())
        let reason = assertUntrusted(evaluation, "hostnameMismatch")
        XCTAssertEqual(reason, .hostnameMismatch(expected: "evil.example.test", presented: ["www.example.test", "example.test"]))
        XCTAssertTrue(evaluation.message.contains("not valid for evil.example.test"), evaluation.message)
    }

    func testHostCheckIsCaseInsensitiveAndIgnoresTrailingDot() throws {
        assertTrusted(try judge(.default, pki.rsaChain, host: "WWW.Example.TEST.", store: pki.testStore()))
    }

    func testWildcardSAN() throws {
        let store = try pki.testStore()
        assertTrusted(try judge(.default, pki.ecChain, host: "api.wild.example.test", store: store))
        assertUntrusted(try judge(.default, pki.ecChain, host: "a.b.wild.example.test", store: store), "hostnameMismatch")
        assertUntrusted(try judge(.default, pki.ecChain, host: "wild.example.test", store: store), "hostnameMismatch")
    }

    func testIPAddressSANs() throws {
        let store = try pki.testStore()
        assertTrusted(try judge(.default, pki.ecChain, host: "127.0.0.1", store: store))
        assertTrusted(try judge(.default, pki.ecChain, host: "::1", store: store))
        assertTrusted(try judge(.default, pki.ecChain, host: "[::1]", store: store))
        let reason = assertUntrusted(try judge(.default, pki.ecChain, host: "127.0.0.2", store: store), "hostnameMismatch")
        XCTAssertEqual(reason, .hostnameMismatch(expected: "127.0.0.2", presented: ["*.wild.example.test", "127.0.0.1", "::1"]))
        // An IP literal is never matched against DNS names.
        assertUntrusted(try judge(.default, pki.rsaChain, host: "10.0.0.1", store: store), "hostnameMismatch")
    }

    func testSelfSignedLeafWithoutPinningIsRefused() throws {
        let evaluation = try judge(.default, [pki.selfAltName], host: "foobar.test", store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.depthZeroSelfSigned, depth: 0)
    }

    func testSelfSignedLeafWithCertificatePinning() throws {
        let policy = try SecurityPolicy(pinning: .certificate, allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName])
        let evaluation = try judge(policy, [pki.selfAltName], host: "foobar.test", store: pki.testStore())
        assertTrusted(evaluation)
        XCTAssertEqual(evaluation.pinVerdict, .matched)
        XCTAssertEqual(evaluation.validatedChain, [pki.selfAltName])
        XCTAssertEqual(evaluation.pins.matched, [pki.selfAltName.spkiPin])
        XCTAssertEqual(evaluation.notices.map(\.kind), ["invalidChainAllowed"])
        // Host and validity are still checked against the pinned anchor.
        assertUntrusted(try judge(policy, [pki.selfAltName], host: "other.test", store: pki.testStore()), "hostnameMismatch")
        assertChainInvalid(try judge(policy, [pki.selfAltName], host: "foobar.test", at: Date.utc("2090-01-01T00:00:00Z"),
                                     store: pki.testStore()), code: VerifyError.certificateExpired)
        // A different self-signed certificate for the same name does not match the pin.
        let other = try SecurityPolicy(pinning: .certificate, allowInvalidCertificates: true, pinnedCertificates: [pki.selfCommonName])
        assertUntrusted(try judge(other, [pki.selfAltName], host: "foobar.test", store: pki.testStore()), "certificatePinMismatch")
        // Without allowInvalidCertificates the invalid chain fails before pins (AFNetworking's order).
        let strict = try SecurityPolicy(pinning: .certificate, pinnedCertificates: [pki.selfAltName])
        assertChainInvalid(try judge(strict, [pki.selfAltName], host: "foobar.test", store: pki.testStore()),
                           code: VerifyError.depthZeroSelfSigned)
    }

    func testUntrustedRoot() throws {
        let store = try TrustStore(systemRoots: false, anchors: [pki.rootRSA])
        let evaluation = try judge(.default, [pki.leafOther, pki.rootOther], host: host, store: store)
        assertChainInvalid(evaluation, code: VerifyError.selfSignedInChain, depth: 1)
    }

    func testMissingIntermediate() throws {
        let evaluation = try judge(.default, [pki.leafRSA], host: host, store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.unableToGetIssuerLocally, depth: 0)
    }

    func testServedChainOrderAndExtraCertificatesDoNotMatter() throws {
        assertTrusted(try judge(.default, [pki.leafRSA, pki.rootRSA, pki.interRSA, pki.interEC], host: host, store: pki.testStore()))
    }

    func testRenewedLeafWithSameKey() throws {
        let renewedChain = [pki.leafRSARenewed, pki.interRSA]
        let keyPinned = try SecurityPolicy(pinning: .publicKey, pinnedCertificates: [pki.leafRSA])
        let evaluation = try judge(keyPinned, renewedChain, host: host, store: pki.testStore())
        assertTrusted(evaluation)
        XCTAssertEqual(evaluation.pins.matched, [pki.leafRSA.spkiPin])
        let certificatePinned = try SecurityPolicy(pinning: .certificate, pinnedCertificates: [pki.leafRSA])
        let refused = try judge(certificatePinned, renewedChain, host: host, store: pki.testStore())
        assertUntrusted(refused, "certificatePinMismatch")
        XCTAssertEqual(refused.pinVerdict, .mismatch)
        // The certificate pin still accepts the original leaf.
        assertTrusted(try judge(certificatePinned, pki.rsaChain, host: host, store: pki.testStore()))
    }

    func testPinOfIntermediateAndOfRoot() throws {
        let store = try pki.testStore()
        for pinned in [pki.interRSA, pki.rootRSA] {
            for mode in [SecurityPolicy.PinningMode.publicKey, .certificate] {
                let policy = try SecurityPolicy(pinning: mode, pinnedCertificates: [pinned])
                let evaluation = try judge(policy, pki.rsaChain, host: host, store: store)
                assertTrusted(evaluation)
                XCTAssertEqual(evaluation.pins.matched, [pinned.spkiPin], "\(mode) \(pinned.subject)")
            }
        }
        // Pinning the intermediate as the anchor yields the chain up to it (partial chain).
        let anchoredAtIntermediate = try judge(SecurityPolicy(pinning: .certificate, pinnedCertificates: [pki.interRSA]),
                                               pki.rsaChain, host: host, store: store)
        XCTAssertEqual(anchoredAtIntermediate.validatedChain, [pki.leafRSA, pki.interRSA])
        // An SPKI pin string of the root (not served) matches within the validated chain.
        let byString = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootRSA.spkiPin])
        assertTrusted(try judge(byString, pki.rsaChain, host: host, store: store))
    }

    func testAppendedPinnedCertificateAttackWithInvalidCertificatesAllowed() throws {
        // The attacker's leaf (untrusted CA) followed by the genuine pinned intermediate.
        let attack = [pki.leafOther, pki.interRSA]
        let store = try TrustStore(systemRoots: false, anchors: [pki.rootRSA])
        let policy = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.interRSA])
        let evaluation = try judge(policy, attack, host: host, store: store)
        guard case .publicKeyPinMismatch(let mismatch)? = assertUntrusted(evaluation, "publicKeyPinMismatch") else { return }
        XCTAssertTrue(mismatch.leafOnly)
        XCTAssertEqual(evaluation.pins.matched, [])
        // The genuine chain passes the same policy.
        assertTrusted(try judge(policy, [pki.leafRSA, pki.interRSA], host: host, store: store))
    }

    func testAppendedPinnedCertificateAttackWithValidOtherCA() throws {
        // The attacker holds a valid certificate for the host from another trusted CA and appends the pinned one.
        let attack = [pki.leafOther, pki.interRSA, pki.rootOther]
        let store = try pki.testStore()
        let keyPolicy = try SecurityPolicy(pinning: .publicKey, pinnedCertificates: [pki.interRSA])
        assertUntrusted(try judge(keyPolicy, attack, host: host, store: store), "publicKeyPinMismatch")
        let certificatePolicy = try SecurityPolicy(pinning: .certificate, pinnedCertificates: [pki.interRSA])
        assertUntrusted(try judge(certificatePolicy, attack, host: host, store: store), "certificatePinMismatch")
    }

    func testPublicKeyPinningWithInvalidCertificatesAllowedStillChecksTheHost() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName])
        assertTrusted(try judge(policy, [pki.selfAltName], host: "foobar.test", store: pki.testStore()))
        let reason = assertUntrusted(try judge(policy, [pki.selfAltName], host: "evil.test", store: pki.testStore()), "hostnameMismatch")
        XCTAssertEqual(reason, .hostnameMismatch(expected: "evil.test", presented: ["foobar.test"]))
    }

    func testReportOnlyMismatchIsTrustedAndReported() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin], reportOnly: true)
        let evaluation = try judge(policy, pki.rsaChain, host: host, store: pki.testStore())
        assertTrusted(evaluation)
        XCTAssertTrue(evaluation.pinMismatchReported)
        XCTAssertEqual(evaluation.pinVerdict, .mismatchReported)
        XCTAssertEqual(evaluation.reportedMismatch?.kind, "publicKeyPinMismatch")
        XCTAssertTrue(evaluation.message.contains("report-only pin mismatch"), evaluation.message)
        // A matching report-only pin is simply matched.
        let matching = try SecurityPolicy(pinning: .publicKey, pins: [pki.interRSA.spkiPin], reportOnly: true)
        let ok = try judge(matching, pki.rsaChain, host: host, store: pki.testStore())
        XCTAssertFalse(ok.pinMismatchReported)
        XCTAssertEqual(ok.pinVerdict, .matched)
    }

    func testReportOnlyStillFailsAnInvalidChain() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin], reportOnly: true)
        let evaluation = try judge(policy, [pki.expiredLeaf, pki.interRSA], host: host, store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.certificateExpired)
        XCTAssertFalse(evaluation.pinMismatchReported)
        XCTAssertEqual(evaluation.pinVerdict, .notEvaluated)
    }

    func testExpiredPinsAreIgnoredWithNotice() throws {
        let expiry = Date.utc("2025-01-01T00:00:00Z")
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin, pki.leafEC.spkiPin], pinsExpire: expiry)
        let evaluation = try judge(policy, pki.rsaChain, host: host, store: pki.testStore())
        assertTrusted(evaluation)
        XCTAssertEqual(evaluation.pinVerdict, .expired)
        XCTAssertEqual(evaluation.notices, [.pinsExpired(since: expiry)])
        XCTAssertTrue(evaluation.message.contains("pins expired"), evaluation.message)
        // Before the expiry the same pins are enforced.
        assertUntrusted(try judge(policy, pki.rsaChain, host: host, at: Date.utc("2024-06-01T00:00:00Z").addingTimeInterval(0),
                                  store: TrustStore(systemRoots: false, anchors: [pki.rootRSA])), "chainInvalid")
        let future = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin, pki.leafEC.spkiPin],
                                        pinsExpire: Date().addingTimeInterval(86400))
        assertUntrusted(try judge(future, pki.rsaChain, host: host, store: pki.testStore()), "publicKeyPinMismatch")
        // Expired pins do not rescue an invalid chain.
        assertChainInvalid(try judge(policy, [pki.leafRSA], host: host, store: pki.testStore()), code: VerifyError.unableToGetIssuerLocally)
    }

    func testExpiredPinsDoNotLeaveInvalidCertificatesAllowed() throws {
        // With pins gone, allowInvalidCertificates + validatesDomainName would be the refused `none` combination,
        // so the chain must validate.
        let policy = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName],
                                        pinsExpire: Date.utc("2025-01-01T00:00:00Z"))
        let evaluation = try judge(policy, [pki.selfAltName], host: "foobar.test", store: pki.testStore())
        assertChainInvalid(evaluation, code: VerifyError.depthZeroSelfSigned)
        XCTAssertEqual(evaluation.pinVerdict, .expired)
    }

    func testPinMismatchMessageListsServedAndConfiguredPins() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin, pki.leafEC.spkiPin])
        let evaluation = try judge(policy, pki.rsaChain, host: host, store: pki.testStore())
        let message = evaluation.verdict.reason?.message ?? ""
        XCTAssertTrue(message.hasPrefix("Public-key pinning failure for www.example.test"), message)
        XCTAssertTrue(message.contains("  Peer certificate chain:\n    \(pki.leafRSA.spkiPin): \(pki.leafRSA.subject)\n    \(pki.interRSA.spkiPin): \(pki.interRSA.subject)"), message)
        XCTAssertTrue(message.contains("  Pinned certificates for www.example.test:\n    \(pki.rootEC.spkiPin)\n    \(pki.leafEC.spkiPin)"), message)
        XCTAssertEqual(evaluation.pins.configured, [pki.rootEC.spkiPin, pki.leafEC.spkiPin])
        XCTAssertEqual(evaluation.pins.served, [pki.leafRSA.spkiPin, pki.interRSA.spkiPin])
        XCTAssertEqual(evaluation.pins.matched, [])
    }

    func testNoCertificates() throws {
        assertUntrusted(try judge(.default, [], host: host, store: pki.testStore()), "noCertificates")
    }

    func testCertificatePinningWithExpiredLeafIsChainInvalidNotMismatch() throws {
        let policy = try SecurityPolicy(pinning: .certificate, allowInvalidCertificates: true, pinnedCertificates: [pki.interRSA])
        assertChainInvalid(try judge(policy, [pki.expiredLeaf, pki.interRSA], host: host, store: pki.testStore()),
                           code: VerifyError.certificateExpired)
    }

    func testReportJSONSchema() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.rootEC.spkiPin, pki.interRSA.spkiPin])
        let evaluation = try judge(policy, pki.rsaChain, host: host, store: pki.testStore())
        let data = try JSONEncoder().encode(evaluation.report)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(json["trusted"] as? Bool, true)
        XCTAssertTrue(json["reason"] is NSNull)
        XCTAssertEqual(json["pin_mismatch_reported"] as? Bool, false)
        XCTAssertEqual(json["verdict"] as? String, "trusted")
        let served = try XCTUnwrap(json["served_chain"] as? [[String: Any]])
        XCTAssertEqual(served.count, 2)
        XCTAssertEqual(served[0]["pin"] as? String, pki.leafRSA.spkiPin.description)
        XCTAssertEqual(served[0]["subject"] as? String, pki.leafRSA.subject)
        XCTAssertNotNil(served[0]["not_after"] as? String)
        XCTAssertEqual((json["validated_chain"] as? [Any])?.count, 3)
        let pins = try XCTUnwrap(json["pins"] as? [String: [String]])
        XCTAssertEqual(pins["matched"], [pki.interRSA.spkiPin.description])
        XCTAssertEqual(pins["configured"]?.count, 2)
        XCTAssertEqual(pins["served"]?.count, 2)

        let failed = try judge(.default, pki.rsaChain, host: "evil.example.test", store: pki.testStore())
        let failedJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(failed.report)) as? [String: Any])
        let reason = try XCTUnwrap(failedJSON["reason"] as? [String: Any])
        XCTAssertEqual(reason["kind"] as? String, "hostnameMismatch")
        XCTAssertTrue((reason["message"] as? String ?? "").contains("evil.example.test"))
        // The reason decodes back.
        let decoded = try JSONDecoder().decode(TrustReport.self, from: JSONEncoder().encode(failed.report))
        XCTAssertEqual(decoded.reason, failed.verdict.reason)
    }

    func testConcurrentEvaluationsShareOneEvaluator() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [pki.interRSA.spkiPin, pki.rootEC.spkiPin])
        let evaluator = try ServerTrustEvaluator(policy: policy, trustStore: pki.testStore())
        let chain = pki.rsaChain
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let evaluation = evaluator.evaluate(servedChain: chain, host: index % 2 == 0 ? "www.example.test" : "evil.example.test")
            if evaluation.isTrusted != (index % 2 == 0) { failures.add() }
        }
        XCTAssertEqual(failures.count, 0)
    }
}

private final class Failures: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
