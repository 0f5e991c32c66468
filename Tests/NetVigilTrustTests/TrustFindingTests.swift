import Foundation
import NetVigilProbeModel
import NetVigilSystem
import XCTest
@testable import NetVigilTrust

/// Baseline Requirements findings: reported with their zlint-style code, never a change of verdict.
final class TrustFindingTests: XCTestCase {
    func testFindingsDoNotChangeTheVerdict() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true, "aki": false],
            ["name": "leaf", "issuer": "inter", "cn": "other.example.com", "dns": ["www.example.com"], "ski": false,
             "days": 500, "eku": NSNull()],
        ])
        let store = try TrustStore(systemRoots: false, anchors: [made["root"]!])
        // The intermediate lacks an authorityKeyIdentifier: OpenSSL strict refuses it, so judge the leaf's findings
        // on a chain that validates and the intermediate's on its own.
        let leafOnly = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            ["name": "leaf", "issuer": "inter", "cn": "other.example.com", "dns": ["www.example.com"], "ski": false,
             "days": 500, "eku": NSNull()],
        ])
        let evaluation = try judge(.default, [leafOnly["leaf"]!, leafOnly["inter"]!], host: "www.example.com",
                                   store: try TrustStore(systemRoots: false, anchors: [leafOnly["root"]!]))
        assertTrusted(evaluation)
        let codes = Set(evaluation.findings.map(\.code))
        XCTAssertEqual(codes, ["e_subject_common_name_not_from_san", "w_ext_subject_key_identifier_missing_sub_cert",
                               "e_tls_server_cert_valid_time_longer_than_398_days", "e_sub_cert_eku_missing",
                               "e_sub_cert_certificate_policies_missing"], "\(evaluation.findings)")
        XCTAssertTrue(evaluation.findings.allSatisfy { $0.severity == .warning && $0.certificate == 0 && !$0.message.isEmpty })

        let intermediate = try judge(.default, [made["leaf"]!, made["inter"]!], host: "www.example.com", store: store)
        XCTAssertTrue(intermediate.findings.contains { $0.code == "e_ext_authority_key_identifier_missing" && $0.certificate == 1 },
                      "\(intermediate.findings)")
    }

    func testReportCarriesFindings() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"], "days": 400],
        ])
        let evaluation = try judge(.default, [made["leaf"]!, made["inter"]!], host: "www.example.com",
                                   store: try TrustStore(systemRoots: false, anchors: [made["root"]!]))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(evaluation.report)) as? [String: Any])
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let long = try XCTUnwrap(findings.first { $0["code"] as? String == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(long["severity"] as? String, "warning")
        XCTAssertEqual(long["certificate"] as? Int, 0)
        XCTAssertNotNil(long["message"] as? String)
        XCTAssertEqual(json["trusted"] as? Bool, true)
    }

    func testFindingsAreRememberedPerServedChain() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            ["name": "long", "issuer": "inter", "dns": ["www.example.com"], "days": 500],
            ["name": "short", "issuer": "inter", "dns": ["www.example.com"], "days": 90],
        ])
        let cache = SharedCache<[Data], [TrustFinding]>(capacity: TrustFinding.cachedChains)
        let long = [made["long"]!, made["inter"]!]
        let short = [made["short"]!, made["inter"]!]
        let first = TrustFinding.cachedBaselineRequirements(servedChain: long, in: cache)
        XCTAssertEqual(first, TrustFinding.baselineRequirements(servedChain: long))
        XCTAssertTrue(first.contains { $0.code == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(TrustFinding.cachedBaselineRequirements(servedChain: long, in: cache), first)
        XCTAssertEqual(cache.count, 1, "the same chain is one entry")
        let other = TrustFinding.cachedBaselineRequirements(servedChain: short, in: cache)
        XCTAssertEqual(other, TrustFinding.baselineRequirements(servedChain: short))
        XCTAssertFalse(other.contains { $0.code == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(TrustFinding.cachedBaselineRequirements(servedChain: [], in: cache), [])
    }
}
