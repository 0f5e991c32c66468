import Foundation
import NetVigilProbeModel
import NetVigilSystem
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// Findings: reported with their zlint-style code and severity, never a change of verdict; the Baseline Requirements
/// only for chains that end at a system root.
final class TrustFindingTests: XCTestCase {
    func testFindingsDoNotChangeTheVerdict() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true, "aki": false],
            ["name": "leaf", "issuer": "inter", "cn": "other.example.com", "dns": ["www.example.com"], "ski": false,
             "days": 500, "eku": NSNull()],
        ])
        let chain = [made["leaf"]!, made["inter"]!]
        // The same root, once as a system root (the Baseline Requirements apply) and once as a configured `ca:`.
        let roots = NSTemporaryDirectory() + "netvigil-findings-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: roots, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: roots) }
        try made["root"]!.pem.write(toFile: roots + "/bundle.pem", atomically: true, encoding: .utf8)
        let system = try TrustStore(systemRoots: SystemRootLocations(directory: roots, bundle: roots + "/bundle.pem"))
        let evaluation = try judge(.default, chain, host: "www.example.com", store: system)
        assertTrusted(evaluation)
        let codes = Set(evaluation.findings.map(\.code))
        XCTAssertEqual(codes, ["e_subject_common_name_not_from_san", "w_ext_subject_key_identifier_missing_sub_cert",
                               "e_tls_server_cert_valid_time_longer_than_398_days", "e_sub_cert_eku_missing",
                               "e_sub_cert_certificate_policies_missing", "e_ext_authority_key_identifier_missing"],
                       "\(evaluation.findings)")
        XCTAssertTrue(evaluation.findings.allSatisfy { $0.severity == .warning && !$0.message.isEmpty })
        XCTAssertTrue(evaluation.findings.contains { $0.code == "e_ext_authority_key_identifier_missing" && $0.certificate == 1 },
                      "\(evaluation.findings)")

        let privately = try judge(.default, chain, host: "www.example.com",
                                  store: try TrustStore(systemRoots: false, anchors: [made["root"]!]))
        assertTrusted(privately)
        XCTAssertEqual(privately.findings.map(\.code), ["e_ext_authority_key_identifier_missing"], "\(privately.findings)")

        let strict = try SecurityPolicy(validation: .strict)
        let refused = try judge(strict, chain, host: "www.example.com", store: try TrustStore(systemRoots: false, anchors: [made["root"]!]))
        XCTAssertNotNil(assertUntrusted(refused, "malformedCertificate")?.ruleViolation, refused.message)
    }

    func testReportCarriesFindings() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            ["name": "leaf", "issuer": "inter", "dns": ["www.example.com"], "days": 400],
        ])
        let evaluation = try judge(.default, [made["leaf"]!, made["inter"]!], host: "www.example.com",
                                   store: try TrustStore(systemRoots: SystemRootLocations(bundle: try bundle(made["root"]!))))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(evaluation.report)) as? [String: Any])
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let long = try XCTUnwrap(findings.first { $0["code"] as? String == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(long["severity"] as? String, "warning")
        XCTAssertEqual(long["certificate"] as? Int, 0)
        XCTAssertNotNil(long["message"] as? String)
        XCTAssertEqual(json["trusted"] as? Bool, true)
    }

    func testFindingsAreRememberedPerJudgedChain() throws {
        let made = try WebPKIFixtures.make([
            ["name": "root", "ca": true], ["name": "inter", "issuer": "root", "ca": true],
            ["name": "long", "issuer": "inter", "dns": ["www.example.com"], "days": 500],
            ["name": "short", "issuer": "inter", "dns": ["www.example.com"], "days": 90],
        ])
        let cache = SharedCache<[Data], [TrustFinding]>(capacity: TrustFinding.cachedChains)
        let long = [made["long"]!, made["inter"]!]
        let short = [made["short"]!, made["inter"]!]
        let first = TrustFinding.cachedFindings(servedChain: long, validatedChain: [], publiclyTrusted: true, in: cache)
        XCTAssertEqual(first, TrustFinding.baselineRequirements(servedChain: long))
        XCTAssertTrue(first.contains { $0.code == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(TrustFinding.cachedFindings(servedChain: long, validatedChain: [], publiclyTrusted: true, in: cache), first)
        XCTAssertEqual(cache.count, 1, "the same chain is one entry")
        let other = TrustFinding.cachedFindings(servedChain: short, validatedChain: [], publiclyTrusted: true, in: cache)
        XCTAssertEqual(other, TrustFinding.baselineRequirements(servedChain: short))
        XCTAssertFalse(other.contains { $0.code == "e_tls_server_cert_valid_time_longer_than_398_days" })
        XCTAssertEqual(cache.count, 2)
        // A private CA's chain is not bound by the Baseline Requirements: the same chain gets no BR lint.
        let privately = TrustFinding.cachedFindings(servedChain: long, validatedChain: [], publiclyTrusted: false, in: cache)
        XCTAssertFalse(privately.contains { $0.code == "e_tls_server_cert_valid_time_longer_than_398_days" }, "\(privately)")
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(TrustFinding.cachedFindings(servedChain: [], validatedChain: [], publiclyTrusted: true, in: cache), [])
    }

    /// A bundle file holding `root`, as the system roots' bundle.
    private func bundle(_ root: Certificate) throws -> String {
        let path = NSTemporaryDirectory() + "netvigil-bundle-\(UUID().uuidString.prefix(8)).pem"
        try root.pem.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }
}
