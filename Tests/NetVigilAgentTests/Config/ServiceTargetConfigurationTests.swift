import Foundation
import XCTest
@testable import NetVigilAgent
@testable import NetVigilProber

/// Targets with a TLS service scheme (tls://, smtp://, imap://, ldap://, postgres://, ...).
final class ServiceTargetConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "netvigil.yml")
    }

    private func assertError(_ target: String, contains fragments: [String], line: UInt = #line) {
        XCTAssertThrowsError(try load("targets:\n  - name: svc\n" + target), line: line) { error in
            let text = "\(error)"
            for fragment in fragments {
                XCTAssertTrue(text.contains(fragment), "\"\(text)\" lacks \"\(fragment)\"", line: line)
            }
        }
    }

    func testServiceSchemesLoadWithDefaultPorts() throws {
        let configuration = try load("""
            targets:
              - { name: mx, url: "smtp://mail.test", expect: { max_response_time: 2s, min_cert_validity: 14d },
                  tls: { pinning: publicKey, pins: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=, sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=] } }
              - { name: submission, url: "submission://mail.test" }
              - { name: directory, url: "ldaps://ldap.test" }
              - { name: db, url: "postgresql://db.test" }
              - { name: raw, url: "tls://203.0.113.7:8883" }
            """)
        let targets = configuration.targets.targets
        XCTAssertEqual(targets.map(\.port), [25, 587, 636, 5432, 8883])
        XCTAssertTrue(targets.allSatisfy(\.isTLS))
        XCTAssertEqual(targets[0].hostPolicy.policy.configuredPins.count, 2)
        XCTAssertEqual(targets[0].configuration.expectations.minCertificateValidity, 14 * 86_400)
        XCTAssertEqual(targets[0].endpoint, "smtp://mail.test/")
        XCTAssertEqual(ServiceScheme(url: targets[3].request.url), .postgres)
    }

    func testHTTPKeysAreLinePreciseErrors() {
        assertError("    url: smtp://mail.test\n    method: POST\n", contains: ["netvigil.yml:4:", "targets[0].method", "needs an http://"])
        assertError("    url: imap://mail.test\n    headers: { X: y }\n", contains: ["netvigil.yml:4:", "headers"])
        assertError("    url: ldap://ldap.test\n    expect:\n      status: [200]\n",
                    contains: ["netvigil.yml:5:", "expect.status", "needs an HTTP response"])
        assertError("    url: pop3://mail.test\n    expect: { body_contains: [x] }\n", contains: ["netvigil.yml:4:", "expect.body_contains"])
        assertError("    url: postgres://db.test\n    expect: { json: ['$.a == 1'] }\n", contains: ["netvigil.yml:4:", "expect.json"])
        assertError("    url: postgres://db.test\n    follow_redirects: 3\n", contains: ["netvigil.yml:4:", "follow_redirects"])
    }

    func testURLShapes() {
        assertError("    url: tls://host.test\n", contains: ["netvigil.yml:3:", "needs a port"])
        assertError("    url: smtp://mail.test/path?x=1\n", contains: ["netvigil.yml:3:", "only a host and a port"])
        assertError("    url: gopher://host.test\n", contains: ["netvigil.yml:3:", "http:// or https://", "smtp://"])
    }
}
