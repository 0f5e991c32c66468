import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

final class SecurityPolicyTests: XCTestCase {
    let pki = PKI.shared

    func testSelfSignedRuleIsALoadError() {
        for pinning in [SecurityPolicy.PinningMode.none] {
            XCTAssertThrowsError(try SecurityPolicy(pinning: pinning, allowInvalidCertificates: true)) { error in
                XCTAssertEqual(error as? PolicyError, .domainValidationOfInvalidCertificatesRequiresPinning)
                XCTAssertTrue("\(error)".contains("requires enforcing pins"))
            }
        }
        // Report-only pins enforce nothing either.
        XCTAssertThrowsError(try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true,
                                                pinnedCertificates: [pki.selfAltName], reportOnly: true)) { error in
            XCTAssertEqual(error as? PolicyError, .domainValidationOfInvalidCertificatesRequiresPinning)
        }
        // Legal: pinning with pins, or no domain validation.
        XCTAssertNoThrow(try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [pki.selfAltName]))
        XCTAssertNoThrow(try SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false))
    }

    func testPinningWithoutPinsIsALoadError() {
        for mode in [SecurityPolicy.PinningMode.publicKey, .certificate] {
            XCTAssertThrowsError(try SecurityPolicy(pinning: mode)) { error in
                XCTAssertEqual(error as? PolicyError, .pinningWithoutPins(mode))
            }
        }
    }

    func testCertificatePinningNeedsCertificates() {
        XCTAssertThrowsError(try SecurityPolicy(pinning: .certificate, pins: [pki.leafRSA.spkiPin])) { error in
            XCTAssertEqual(error as? PolicyError, .certificatePinningRequiresCertificates)
        }
    }

    func testPinsWithoutPinningModeAreALoadError() {
        XCTAssertThrowsError(try SecurityPolicy(pins: [pki.leafRSA.spkiPin])) { error in
            XCTAssertEqual(error as? PolicyError, .pinsIgnoredWithoutPinningMode)
        }
        XCTAssertThrowsError(try SecurityPolicy(pinsExpire: Date()))
    }

    func testBackupPinWarning() throws {
        let single = try SecurityPolicy(pinning: .publicKey, pins: [pki.leafRSA.spkiPin])
        XCTAssertEqual(single.warnings, [.noBackupPin(count: 1)])
        // The pinned certificate and a pin of the same key count once.
        let sameKey = try SecurityPolicy(pinning: .publicKey, pinnedCertificates: [pki.leafRSA], pins: [pki.leafRSA.spkiPin])
        XCTAssertEqual(sameKey.warnings, [.noBackupPin(count: 1)])
        XCTAssertEqual(try SecurityPolicy(pinning: .publicKey, pins: [pki.leafRSA.spkiPin, pki.rootEC.spkiPin]).warnings, [])
        XCTAssertEqual(try SecurityPolicy(pinning: .publicKey, pins: [pki.leafRSA.spkiPin], reportOnly: true).warnings, [])
        XCTAssertEqual(try SecurityPolicy(pinning: .certificate, pinnedCertificates: [pki.interRSA]).warnings, [.noBackupPin(count: 1)])
        XCTAssertEqual(SecurityPolicy.default.warnings, [])
    }

    func testPolicyFromPathsAndPinStrings() throws {
        let policy = try SecurityPolicy(pinning: .publicKey, pinnedCertificatePaths: [pki.path("chain-rsa.pem")],
                                        pinStrings: ["pin-sha256=\"\(pki.rootEC.spkiPin.digest.base64EncodedString())\""])
        XCTAssertEqual(policy.pinnedCertificates, [pki.leafRSA, pki.interRSA])
        XCTAssertEqual(policy.configuredPins, [pki.leafRSA.spkiPin, pki.interRSA.spkiPin, pki.rootEC.spkiPin])
        XCTAssertThrowsError(try SecurityPolicy(pinning: .publicKey, pinnedCertificatePaths: ["/nonexistent.pem"])) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent.pem"), "\(error)")
        }
        XCTAssertThrowsError(try SecurityPolicy(pinning: .publicKey, pinnedCertificatePaths: [], pinStrings: ["md5/abc"])) { error in
            guard case .invalidPin? = error as? PolicyError else { return XCTFail("\(error)") }
        }
    }

    func testDecodingValidatesThePolicy() throws {
        let bad = Data(#"{"allow_invalid_certificates": true}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(SecurityPolicy.self, from: bad)) { error in
            XCTAssertTrue("\(error)".contains("requires enforcing pins"), "\(error)")
        }
        let minimal = try JSONDecoder().decode(SecurityPolicy.self, from: Data("{}".utf8))
        XCTAssertEqual(minimal, .default)
    }
}

final class PolicySetTests: XCTestCase {
    func policy(_ pins: Int) throws -> SecurityPolicy {
        // Distinguishable policies: report-only with n fake pins.
        try SecurityPolicy(pinning: .publicKey, pins: (0..<pins).map { SPKIPin(digest: Data(repeating: UInt8($0), count: 32)) }, reportOnly: true)
    }

    func testPatternForms() throws {
        let exact = try HostPattern("WWW.Example.com.")
        XCTAssertTrue(exact.matches("www.example.com"))
        XCTAssertFalse(exact.matches("a.www.example.com"))
        let single = try HostPattern("*.example.com")
        XCTAssertTrue(single.matches("api.example.com"))
        XCTAssertTrue(single.matches("API.EXAMPLE.COM."))
        XCTAssertFalse(single.matches("example.com"))
        XCTAssertFalse(single.matches("a.b.example.com"))
        XCTAssertFalse(single.matches("badexample.com"))
        let any = try HostPattern("**.example.com")
        XCTAssertTrue(any.matches("example.com"))
        XCTAssertTrue(any.matches("a.example.com"))
        XCTAssertTrue(any.matches("a.b.c.example.com"))
        XCTAssertFalse(any.matches("notexample.com"))
        XCTAssertEqual(any.description, "**.example.com")
    }

    func testInvalidPatterns() {
        for text in ["", "*.", "**.", "a..b", "*", "www.*.com", "*x.example.com", "exa mple.com"] {
            XCTAssertThrowsError(try HostPattern(text), text)
        }
    }

    func testMostSpecificWins() throws {
        let set = try PolicySet(default: .default, policies: [
            ("**.example.com", try policy(1)),
            ("*.example.com", try policy(2)),
            ("www.example.com", try policy(3)),
            ("**.eu.example.com", try policy(4)),
            ("*.eu.example.com", try policy(5)),
        ])
        XCTAssertEqual(set.policy(for: "www.example.com").pins.count, 3)
        XCTAssertEqual(set.policy(for: "api.example.com").pins.count, 2)
        XCTAssertEqual(set.policy(for: "example.com").pins.count, 1)
        XCTAssertEqual(set.policy(for: "a.b.example.com").pins.count, 1)
        XCTAssertEqual(set.policy(for: "x.eu.example.com").pins.count, 5)
        XCTAssertEqual(set.policy(for: "y.x.eu.example.com").pins.count, 4)
        XCTAssertEqual(set.policy(for: "eu.example.com").pins.count, 4)
        XCTAssertEqual(set.policy(for: "example.org"), .default)
        XCTAssertNil(set.entry(for: "example.org"))
    }

    func testDuplicatePatternIsRefused() throws {
        XCTAssertThrowsError(try PolicySet(policies: [("*.example.com", try policy(1)), ("*.EXAMPLE.com", try policy(2))])) { error in
            XCTAssertTrue("\(error)".contains("appears twice"))
        }
    }
}
