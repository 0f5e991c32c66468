import Foundation
import NetVigilTrust
import XCTest
@testable import NetVigilAgent

/// The TLS policy key `validation` in a target's `tls:` and in `tls_policies:` entries.
final class ValidationProfileConfigurationTests: XCTestCase {
    func testValidationKeyDefaultsToWebPKI() throws {
        let configuration = try AgentConfiguration(yaml: """
            targets:
              - { name: strict, url: "https://a.test/" }
              - { name: relaxed, url: "https://b.test/", tls: { validation: rfc5280 } }
            tls_policies:
              - { hosts: ["*.cdn.test"], validation: rfc5280 }
            """, file: "netvigil.yml")
        let targets = configuration.targets.targets
        XCTAssertEqual(targets[0].configuration.policies.policy(for: "a.test").validation, .webpki)
        XCTAssertEqual(targets[0].configuration.policies.policy(for: "img.cdn.test").validation, .rfc5280)
        XCTAssertEqual(targets[1].hostPolicy.policy.validation, .rfc5280)
    }

    func testUnknownProfileIsALoadError() {
        XCTAssertThrowsError(try AgentConfiguration(yaml: """
            targets:
              - { name: a, url: "https://a.test/", tls: { validation: browser } }
            """, file: "netvigil.yml")) { error in
            XCTAssertTrue("\(error)".contains("targets[0].tls.validation"), "\(error)")
            XCTAssertTrue("\(error)".contains("webpki"), "\(error)")
        }
    }
}
