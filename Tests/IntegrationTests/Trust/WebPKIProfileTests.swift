import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// One test per `webpki` rule family: the profile (and `strict`) refuses with the family's reason while `rfc5280`
/// (where OpenSSL is lenient) accepts; the rules `webpki` tolerates are findings there and refusals under `strict`;
/// plus positive controls. Chains come from `WebPKIFixtures` (python3 cryptography).
final class WebPKIProfileTests: XCTestCase {
    /// root → inter → leaf, with `leaf` and `inter` overriding the defaults.
    func chain(leaf: [String: Any] = [:], inter: [String: Any] = [:], root: [String: Any] = [:],
               extra: [[String: Any]] = []) throws -> (served: [Certificate], root: Certificate) {
        var rootSpec: [String: Any] = ["name": "root", "ca": true]
        rootSpec.merge(root) { $1 }
        var interSpec: [String: Any] = ["name": "inter", "issuer": "root", "ca": true]
        interSpec.merge(inter) { $1 }
        var leafSpec: [String: Any] = ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"]]
        leafSpec.merge(leaf) { $1 }
        let made = try WebPKIFixtures.make([rootSpec, interSpec] + extra + [leafSpec])
        return ([made["leaf"]!, made["inter"]!], made["root"]!)
    }

    func evaluate(_ chain: (served: [Certificate], root: Certificate), host: String? = "www.example.com",
                  _ profile: ValidationProfile) throws -> TrustEvaluation {
        let store = try TrustStore(systemRoots: false, anchors: [chain.root])
        let policy = try SecurityPolicy(validatesDomainName: host != nil, validation: profile)
        return try judge(policy, chain.served, host: host, store: store)
    }

    /// webpki refuses with `kind` (and `rule` when given); rfc5280 trusts when `lenient`.
    func assertWebPKIRefuses(_ chain: (served: [Certificate], root: Certificate), host: String? = "www.example.com",
                             _ kind: String, rule: String? = nil, rfc5280Trusts lenient: Bool,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let strict = try evaluate(chain, host: host, .webpki)
        let reason = assertUntrusted(strict, kind, file: file, line: line)
        if let rule { XCTAssertEqual(reason?.ruleViolation?.rule, rule, strict.message, file: file, line: line) }
        let strictest = try evaluate(chain, host: host, .strict)
        XCTAssertEqual(strictest.verdict.reason?.kind, strict.verdict.reason?.kind, strictest.message, file: file, line: line)
        let relaxed = try evaluate(chain, host: host, .rfc5280)
        if lenient { assertTrusted(relaxed, file: file, line: line) } else { XCTAssertFalse(relaxed.isTrusted, file: file, line: line) }
    }

    /// A standards violation clients tolerate: `webpki` and `rfc5280` trust with the finding `code`, `strict` refuses
    /// with `kind` and `rule`.
    func assertOnlyStrictRefuses(_ chain: (served: [Certificate], root: Certificate), _ kind: String, rule: String,
                                 finding code: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let tolerant = try evaluate(chain, .webpki)
        assertTrusted(tolerant, file: file, line: line)
        XCTAssertTrue(tolerant.findings.contains { $0.code == code && $0.severity == .warning }, "\(tolerant.findings)",
                      file: file, line: line)
        assertTrusted(try evaluate(chain, .rfc5280), file: file, line: line)
        // OpenSSL's X509_V_FLAG_X509_STRICT may see it first: its rule then names OpenSSL's family check.
        let reason = assertUntrusted(try evaluate(chain, .strict), kind, file: file, line: line)
        XCTAssertTrue([rule, "openssl_x509_strict", "openssl_ca_constraints"].contains(reason?.ruleViolation?.rule ?? ""),
                      "\(String(describing: reason))", file: file, line: line)
    }

    func testPositiveControlsTrustedByBothProfiles() throws {
        for key in ["ec256", "ec384", "rsa2048", "rsa3072", "ed25519"] {
            let good = try chain(leaf: ["key": key], inter: ["key": key], root: ["key": key])
            assertTrusted(try evaluate(good, .webpki))
            assertTrusted(try evaluate(good, .rfc5280))
        }
        let noEKU = try chain(leaf: ["eku": NSNull()])
        assertTrusted(try evaluate(noEKU, .webpki))
    }

    // MARK: Server identity

    func testCommonNameIsNotAServerIdentity() throws {
        let cnOnly = try chain(leaf: ["dns": [String](), "cn": "www.example.com"])
        try assertWebPKIRefuses(cnOnly, "hostnameMismatch", rfc5280Trusts: true)
    }

    func testWildcardOverPublicSuffixIsRefused() throws {
        let wildcard = try chain(leaf: ["dns": ["*.co.uk"]])
        try assertWebPKIRefuses(wildcard, host: "shop.co.uk", "invalidServerName", rule: "wildcard_over_public_suffix", rfc5280Trusts: true)
        // Without a host check too: the name itself is invalid.
        try assertWebPKIRefuses(wildcard, host: nil, "invalidServerName", rule: "wildcard_over_public_suffix", rfc5280Trusts: true)
        // A private-section suffix is not registry-controlled (Chrome): allowed.
        assertTrusted(try evaluate(try chain(leaf: ["dns": ["*.github.io"]]), host: "me.github.io", .webpki))
        assertTrusted(try evaluate(try chain(leaf: ["dns": ["*.example.com"]]), host: "a.example.com", .webpki))
        assertUntrusted(try evaluate(try chain(leaf: ["dns": ["*.example.com"]]), host: "a.b.example.com", .webpki), "hostnameMismatch")
    }

    func testMalformedDNSNamesAreRefused() throws {
        try assertWebPKIRefuses(try chain(leaf: ["dns": ["a_b.example.com"]]), host: "a_b.example.com",
                                "invalidServerName", rule: "dns_name_underscore", rfc5280Trusts: true)
        try assertWebPKIRefuses(try chain(leaf: ["dns": ["www.example.com", "w*.example.com"]]),
                                "invalidServerName", rule: "wildcard_partial_label", rfc5280Trusts: true)
        try assertWebPKIRefuses(try chain(leaf: ["dns": ["www.example.com", "a..example.com"]]),
                                "invalidServerName", rule: "dns_name_empty_label", rfc5280Trusts: true)
    }

    func testIPAddressesAreComparedAsAddresses() throws {
        let addresses = try chain(leaf: ["dns": [String](), "ip": ["127.0.0.1", "::1"]])
        assertTrusted(try evaluate(addresses, host: "127.0.0.1", .webpki))
        assertTrusted(try evaluate(addresses, host: "[0:0:0:0:0:0:0:1]", .webpki))
        assertUntrusted(try evaluate(addresses, host: "127.0.0.2", .webpki), "hostnameMismatch")
        // An address written as a DNS name is not an IP identity.
        assertUntrusted(try evaluate(try chain(leaf: ["dns": ["127.0.0.1"]]), host: "127.0.0.1", .webpki), "hostnameMismatch")
    }

    // MARK: basicConstraints, keyUsage, version

    func testLeafThatIsACAIsRefused() throws {
        let caLeaf = try chain(leaf: ["ca": true, "ku": ["digital_signature", "key_cert_sign"], "eku": ["serverAuth"]])
        try assertWebPKIRefuses(caLeaf, "caConstraintViolation", rule: "leaf_is_ca", rfc5280Trusts: true)
    }

    func testLeafWithKeyCertSignIsRefused() throws {
        // OpenSSL refuses it only under X509_V_FLAG_X509_STRICT.
        let signer = try chain(leaf: ["ku": ["digital_signature", "key_cert_sign"]])
        try assertWebPKIRefuses(signer, "caConstraintViolation", rfc5280Trusts: true)
    }

    func testIssuerBasicConstraintsRules() throws {
        try assertWebPKIRefuses(try chain(inter: ["bc": false]), "caConstraintViolation", rfc5280Trusts: false)
        // easy-rsa writes its sub-CA so: every client accepts it.
        try assertOnlyStrictRefuses(try chain(inter: ["bc_critical": false]), "caConstraintViolation",
                                    rule: "ca_basic_constraints_not_critical", finding: "e_basic_constraints_not_critical")
        try assertOnlyStrictRefuses(try chain(inter: ["ku": NSNull()]), "caConstraintViolation",
                                    rule: "ca_key_usage_missing", finding: "e_ca_key_usage_missing")
        try assertWebPKIRefuses(try chain(inter: ["ku": ["crl_sign"]]), "caConstraintViolation", rfc5280Trusts: false)
        let deep = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter1", "issuer": "root", "ca": true, "pathlen": 0],
            ["name": "inter2", "issuer": "inter1", "ca": true], ["name": "leaf", "issuer": "inter2", "dns": ["www.example.com"]],
        ])
        try assertWebPKIRefuses(([deep["leaf"]!, deep["inter2"]!, deep["inter1"]!], deep["root"]!), "caConstraintViolation",
                                rfc5280Trusts: false)
    }

    func testVersion1CertificateIsNeverACA() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "v1": true],
            ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"]],
        ])
        try assertWebPKIRefuses(([made["leaf"]!, made["inter"]!], made["root"]!), "caConstraintViolation", rfc5280Trusts: false)
    }

    func testAnchorIsAKeyAndAName() throws {
        // A root without basicConstraints or keyUsage is still an anchor (rustls-webpki, Chrome's trust store).
        let bare = try chain(root: ["bc": false, "ku": NSNull()])
        assertTrusted(try evaluate(bare, .webpki))
    }

    // MARK: Keys and signatures

    func testWeakKeysAreRefused() throws {
        for (key, rule) in [("rsa1024", "key_below_security_level_2"), ("ec224", "ec_curve_not_allowed"),
                            ("dsa2048", "key_algorithm_not_allowed")] {
            try assertWebPKIRefuses(try chain(leaf: ["key": key, "ku": ["digital_signature"]]), "weakKey", rule: rule, rfc5280Trusts: true)
        }
        try assertWebPKIRefuses(try chain(leaf: ["key": "ec192"]), "weakKey", rfc5280Trusts: true)
        try assertOnlyStrictRefuses(try chain(leaf: ["key": "rsa2052", "ku": ["digital_signature"]]), "weakKey",
                                    rule: "rsa_modulus_not_multiple_of_8", finding: "e_rsa_mod_not_multiple_of_8")
    }

    func testWeakSignaturesAreRefused() throws {
        try assertWebPKIRefuses(try chain(leaf: ["hash": "sha1"], inter: ["key": "rsa2048"]), "weakSignature", rfc5280Trusts: true)
    }

    // MARK: extendedKeyUsage

    func testLeafNeedsServerAuth() throws {
        try assertWebPKIRefuses(try chain(leaf: ["eku": ["clientAuth"]]), "extendedKeyUsageViolation", rfc5280Trusts: false)
        try assertWebPKIRefuses(try chain(leaf: ["eku": ["any"]]), "extendedKeyUsageViolation", rfc5280Trusts: false)
    }

    func testIntermediateEKUConstrainsTheLeaf() throws {
        try assertWebPKIRefuses(try chain(inter: ["eku": ["clientAuth"]]), "extendedKeyUsageViolation", rfc5280Trusts: false)
        assertTrusted(try evaluate(try chain(inter: ["eku": ["serverAuth", "clientAuth"]]), .webpki))
    }

    // MARK: Name constraints

    func testExcludedSubtreeAppliesToWildcards() throws {
        let wildcard = try chain(leaf: ["dns": ["*.example.com"]], inter: ["excluded": ["dns:bad.example.com"]])
        try assertWebPKIRefuses(wildcard, host: "good.example.com", "nameConstraintViolation", rule: "name_excluded", rfc5280Trusts: true)
        let outside = try chain(leaf: ["dns": ["*.example.com"]], inter: ["excluded": ["dns:.bad.example.com"]])
        assertTrusted(try evaluate(outside, host: "good.example.com", .webpki))
    }

    func testPermittedSubtreeAppliesToTheCommonName() throws {
        let sneaky = try chain(leaf: ["dns": ["www.example.com"], "cn": "evil.test"], inter: ["permitted": ["dns:example.com"]])
        try assertWebPKIRefuses(sneaky, "nameConstraintViolation", rule: "name_not_permitted", rfc5280Trusts: true)
        assertTrusted(try evaluate(try chain(leaf: ["cn": "Example Server"], inter: ["permitted": ["dns:example.com"]]), .webpki))
    }

    func testIPAndDirectoryNameConstraints() throws {
        let address = try chain(leaf: ["dns": [String](), "ip": ["192.168.1.1"]], inter: ["permitted": ["ip:10.0.0.0/8"]])
        try assertWebPKIRefuses(address, host: "192.168.1.1", "nameConstraintViolation", rfc5280Trusts: false)
        let directory = try chain(leaf: ["cn": "leaf"], inter: ["permitted": ["dn:O=Example"]])
        try assertWebPKIRefuses(directory, "nameConstraintViolation", rfc5280Trusts: false)
    }

    func testNameConstraintsInALeafAreRefused() throws {
        let leafConstraints = try chain(leaf: ["permitted": ["dns:example.com"]])
        try assertWebPKIRefuses(leafConstraints, "nameConstraintViolation", rule: "name_constraints_in_leaf", rfc5280Trusts: true)
    }

    // MARK: Structure

    func testDuplicateAndMalformedExtensionsAreRefused() throws {
        // A second subjectAltName: a placeholder extension 1.2.3.4 renamed to 2.5.29.17 after building.
        let duplicate = try chain(leaf: ["raw": [["oid": "1.2.3.4", "hex": "300f820d7777772e6578616d706c652e636f6d"]],
                                         "patch": [["06032a0304", "0603551d11"]]])
        try assertWebPKIRefuses(duplicate, "malformedCertificate", rfc5280Trusts: false)
        let badAIA = try chain(leaf: ["raw": [["oid": "1.3.6.1.5.5.7.1.1", "hex": "0500"]]])
        try assertWebPKIRefuses(badAIA, "malformedCertificate", rule: "extension_malformed", rfc5280Trusts: true)
    }

    func testSerialNumberRules() throws {
        let negative = try chain(leaf: ["serial": 0x7e7e_7e7e_7e7e_7e7e, "patch": [["02087e7e7e7e7e7e7e7e", "0208fe7e7e7e7e7e7e7e"]]])
        try assertWebPKIRefuses(negative, "malformedCertificate", rule: "serial_negative", rfc5280Trusts: true)
        try assertWebPKIRefuses(try chain(leaf: ["openssl_serial": "0"]), "malformedCertificate", rule: "serial_zero", rfc5280Trusts: true)
        let long = "0x01" + String(repeating: "00", count: 20)
        try assertWebPKIRefuses(try chain(leaf: ["openssl_serial": long]), "malformedCertificate", rule: "serial_too_long", rfc5280Trusts: true)
        assertTrusted(try evaluate(try chain(leaf: ["openssl_serial": "0x7f" + String(repeating: "00", count: 19)]), .webpki))
    }

    func testMissingKeyIdentifiersAreFindingsUnlessStrict() throws {
        try assertOnlyStrictRefuses(try chain(leaf: ["aki": false]), "malformedCertificate",
                                    rule: "authority_key_identifier_missing", finding: "e_ext_authority_key_identifier_missing")
        try assertOnlyStrictRefuses(try chain(inter: ["aki": false]), "malformedCertificate",
                                    rule: "authority_key_identifier_missing", finding: "e_ext_authority_key_identifier_missing")
        try assertOnlyStrictRefuses(try chain(inter: ["ski": false]), "malformedCertificate",
                                    rule: "subject_key_identifier_missing_ca", finding: "e_ext_subject_key_identifier_missing_ca")
    }

    // MARK: Anchors and time

    func testAnAnchorsPathLengthLimitsTheChain() throws {
        // root pathlen:0 → intermediate → leaf: every client refuses it, whatever the profile.
        let limited = try chain(root: ["pathlen": 0])
        for profile in ValidationProfile.allCases {
            XCTAssertFalse(try evaluate(limited, profile).isTrusted, "\(profile)")
        }
        let rule = assertUntrusted(try evaluate(limited, .webpki), "caConstraintViolation")?.ruleViolation?.rule
        XCTAssertTrue(["path_length_exceeded", "openssl_ca_constraints"].contains(rule ?? ""), "\(String(describing: rule))")
        assertTrusted(try evaluate(try chain(root: ["pathlen": 1]), .webpki))
    }

    func testAnyCertificateInTheAnchorSetIsAnAnchor() throws {
        let made = try chain()
        let intermediateAnchored = (served: [made.served[0]], root: made.served[1])
        for profile in ValidationProfile.allCases {
            assertTrusted(try evaluate(intermediateAnchored, profile))
        }
    }

    func testNotAfterIsInclusive() throws {
        let made = try chain()
        let notAfter = made.served.map(\.notAfter).min()!
        let store = try TrustStore(systemRoots: false, anchors: [made.root])
        for profile in ValidationProfile.allCases {
            let policy = try SecurityPolicy(validation: profile)
            assertTrusted(try judge(policy, made.served, host: "www.example.com", at: notAfter, store: store))
            let after = try judge(policy, made.served, host: "www.example.com", at: notAfter.addingTimeInterval(1), store: store)
            XCTAssertFalse(after.isTrusted, "\(profile)")
        }
    }

    // MARK: Client splits

    func testAKeyUsageGnuTLSRefusesIsAnErrorFinding() throws {
        let encipherOnly = try evaluate(try chain(leaf: ["key": "rsa2048", "ku": ["key_encipherment"]]), .webpki)
        assertTrusted(encipherOnly)
        let finding = encipherOnly.findings.first { $0.code == "e_sub_cert_key_usage_missing_digital_signature" }
        XCTAssertEqual(finding?.severity, .error, "\(encipherOnly.findings)")
        XCTAssertTrue(finding?.message.contains("GnuTLS") ?? false)
        let signing = try evaluate(try chain(leaf: ["key": "rsa2048", "ku": ["digital_signature", "key_encipherment"]]), .webpki)
        XCTAssertFalse(signing.findings.contains { $0.severity == .error }, "\(signing.findings)")
    }

    func testEd25519IsAnErrorFindingNamingNSS() throws {
        let ed = try evaluate(try chain(leaf: ["key": "ed25519"]), .webpki)
        assertTrusted(ed)
        let finding = ed.findings.first { $0.code == "e_ed25519_unsupported_by_nss" }
        XCTAssertEqual(finding?.severity, .error, "\(ed.findings)")
        XCTAssertTrue(finding?.message.contains("NSS") ?? false)
    }

    func testACommonNameAloneIsExplained() throws {
        let cnOnly = try evaluate(try chain(leaf: ["dns": [String](), "cn": "www.example.com"]), .webpki)
        XCTAssertEqual(cnOnly.verdict.reason?.kind, "hostnameMismatch")
        XCTAssertTrue(cnOnly.message.contains("no subjectAltName"), cnOnly.message)
        XCTAssertFalse(cnOnly.message.contains("no names"), cnOnly.message)
    }
}
