import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilAgent

final class TargetsConfigurationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificatePath = ""

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        certificatePath = directory.path("pin.pem")
        try TestCertificateFactory.selfSigned(subject: "/CN=api.test", days: 2, certificatePath: certificatePath,
                                              keyPath: directory.path("pin.key"))
    }

    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "netvigil.yml")
    }

    private func assertError(_ yaml: String, contains fragments: [String], line: UInt = #line) {
        XCTAssertThrowsError(try load(yaml), line: line) { error in
            let text = "\(error)"
            for fragment in fragments {
                XCTAssertTrue(text.contains(fragment), "\"\(text)\" lacks \"\(fragment)\"", line: line)
            }
        }
    }

    func testFullTargetBuildsTheRequestAndProbeConfiguration() throws {
        let configuration = try load("""
            scheduler: { concurrency: 8 }
            alerts:
              sinks:
                - { name: pager, webhook: { url: "http://127.0.0.1:9/hook" } }
                - { name: script, exec: { command: [/bin/true] } }
            tls_policies:
              - hosts: ["*.cdn.test"]
                pinning: publicKey
                pins: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=, sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=]
            targets:
              - name: api
                url: https://api.test:8443/health?x=1
                interval: 30s
                timeout: 5s
                method: GET
                headers: { X-Probe: netvigil }
                params: { a: { b: 1 }, list: [x, y] }
                basic_auth: { user: probe, password: "p@ss" }
                expect: { status: [200, "204-206"], content_type: [application/json], json: ['$.status == "UP"'],
                          max_response_time: 500ms, min_cert_validity: 1d }
                tls: { pinning: certificate, pinned_certificates: [\(certificatePath)], system_roots: false, ca: [\(certificatePath)] }
                alerts: [pager]
                ip: prefer-6
              - name: form
                url: http://127.0.0.1:8080/submit
                method: POST
                body: { form: { k: v } }
                follow_redirects: false
                ip: "4"
            """)
        XCTAssertEqual(configuration.scheduler.concurrency, 8)
        XCTAssertEqual(configuration.targets.targets.count, 2)
        let api = configuration.targets.targets[0]
        XCTAssertEqual(api.name, "api")
        XCTAssertEqual(api.host, "api.test")
        XCTAssertEqual(api.port, 8443)
        XCTAssertEqual(api.interval, .seconds(30))
        XCTAssertEqual(api.configuration.timeout, 5)
        XCTAssertEqual(api.request.url.absoluteString, "https://api.test:8443/health?x=1&a%5Bb%5D=1&list%5B%5D=x&list%5B%5D=y")
        XCTAssertEqual(api.request.header("X-Probe"), "netvigil")
        XCTAssertEqual(api.request.header("Authorization"), "Basic " + Data("probe:p@ss".utf8).base64EncodedString())
        XCTAssertEqual(api.configuration.responseSerializer.acceptableStatusCodes, [200, 204, 205, 206])
        XCTAssertEqual(api.configuration.responseSerializer.acceptableContentTypes, ["application/json"])
        XCTAssertEqual(api.configuration.expectations.jsonPaths.count, 1)
        XCTAssertEqual(api.configuration.expectations.maxResponseTime, 0.5)
        XCTAssertEqual(api.configuration.expectations.minCertificateValidity, 86_400)
        XCTAssertEqual(api.hostPolicy.policy.pinning, .certificate)
        XCTAssertFalse(api.configuration.trustStore.usesSystemRoots)
        XCTAssertEqual(api.configuration.trustStore.anchors.count, 1)
        XCTAssertEqual(api.alertSinks, ["pager"])
        XCTAssertEqual(api.configuration.addressFamily, .any)
        XCTAssertEqual(api.configuration.preferredFamily, .ipv6)
        // The shared policy applies to matching hosts (and redirect hops), the target's own to its host.
        XCTAssertEqual(api.configuration.policies.policy(for: "img.cdn.test").pinning, .publicKey)

        let form = configuration.targets.targets[1]
        XCTAssertEqual(form.request.method.rawValue, "POST")
        XCTAssertEqual(String(decoding: form.request.body, as: UTF8.self), "k=v")
        XCTAssertEqual(form.request.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(form.configuration.maxRedirects, 0)
        XCTAssertEqual(form.configuration.addressFamily, .ipv4)
        XCTAssertEqual(form.configuration.preferredFamily, .system)
        XCTAssertEqual(form.alertSinks, ["pager", "script"], "without alerts: a target alerts every sink")
        XCTAssertEqual(form.interval, TargetsSection.defaultInterval)
    }

    func testJSONBodyKeepsYAMLTypes() throws {
        let configuration = try load("""
            targets:
              - name: post
                url: http://127.0.0.1:1/x
                method: POST
                body: { json: { ok: true, n: 3, f: 1.5, s: "3", none: null, list: [1, two] } }
            """)
        let body = String(decoding: configuration.targets.targets[0].request.body, as: UTF8.self)
        XCTAssertEqual(body, #"{"f":1.5,"list":[1,"two"],"n":3,"none":null,"ok":true,"s":"3"}"#)
        XCTAssertEqual(configuration.targets.targets[0].request.header("Content-Type"), "application/json")
    }

    func testSelfSignedRuleIsALoadError() {
        // AFNetworking: allowInvalidCertificates with domain validation needs pinning.
        assertError("""
            targets:
              - name: t
                url: https://self.test/
                tls: { allow_invalid_certificates: true }
            """, contains: ["netvigil.yml:4:", "targets[0].tls"])
    }

    func testErrorsNameKeyPathAndLine() {
        assertError("""
            targets:
              - name: a
                url: ftp://x/
            """, contains: ["netvigil.yml:3:", "targets[0].url", "http:// or https://"])
        assertError("""
            targets:
              - name: a
                url: http://x/
                intervall: 5s
            """, contains: ["targets[0].intervall", "did you mean interval?"])
        assertError("""
            targets:
              - { name: a, url: "http://x/" }
              - { name: a, url: "http://y/" }
            """, contains: ["used twice"])
        assertError("""
            targets:
              - { name: a, url: "http://x/", alerts: [pagr] }
            alerts:
              sinks: [{ name: pager, webhook: { url: "http://127.0.0.1:9/" } }]
            """, contains: ["targets[0].alerts[0]", "no alert sink named \"pagr\"", "did you mean pager?"])
        assertError("""
            targets:
              - { name: a, url: "https://x/", tls: { pinning: publicKey } }
            """, contains: ["targets[0].tls"])
        assertError("""
            targets:
              - { name: a, url: "https://x/", tls: { pins: [sha256/notbase64] } }
            """, contains: ["targets[0].tls.pins[0]"])
        assertError("""
            targets:
              - { name: a, url: "https://x/", tls: { pinned_certificates: [/nonexistent.pem] } }
            """, contains: ["targets[0].tls.pinned_certificates[0]", "/nonexistent.pem"])
        assertError("""
            targets:
              - { name: a, url: "http://x/", method: GET, body: { json: {} } }
            """, contains: ["targets[0].body", "no body"])
        assertError("""
            targets:
              - { name: "a b", url: "http://x/" }
            """, contains: ["targets[0].name"])
        assertError("""
            tls_policies:
              - { hosts: [a.test], pins: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=] }
              - { hosts: [a.test], pins: [sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=] }
            """, contains: ["tls_policies[1].hosts[0]", "already has a policy"])
        assertError("""
            reachability:
              captive_portal: { url: "http://portal.test/generate_204", expect_status: 999 }
            """, contains: ["reachability.captive_portal.expect_status"])
    }

    func testFingerprintChangesWithPinnedFileContents() throws {
        let yaml = """
            targets:
              - { name: a, url: "https://a.test/", tls: { pinning: certificate, pinned_certificates: [\(certificatePath)] } }
            """
        let first = try load(yaml).targets.targets[0]
        let same = try load(yaml).targets.targets[0]
        XCTAssertTrue(first.isEquivalent(to: same))
        try TestCertificateFactory.selfSigned(subject: "/CN=rotated", days: 2, certificatePath: certificatePath,
                                              keyPath: directory.path("pin2.key"))
        let rotated = try load(yaml).targets.targets[0]
        XCTAssertFalse(first.isEquivalent(to: rotated), "a reload must pick up a rotated pin file")
    }

    /// A reload keeps a target whose values are the same however they are laid out, and restarts one whose values
    /// changed: a value, a quoted `"3"` for a plain `3` (a JSON string for a number), or keys and values that only
    /// run together alike (`X-A: bc` and `X-Ab: c`).
    func testFingerprintFollowsTheValuesNotTheLayout() throws {
        func target(_ entry: String) throws -> ProbeTarget { try load("targets:\n" + entry).targets.targets[0] }
        let flow = try target(#"  - { name: a, url: "https://a.test/", method: POST, interval: 30s, headers: { X-A: bc }, body: { json: { n: 3 } } }"#)
        let block = try target("""
              - name: a
                url: 'https://a.test/'
                method: POST
                interval: 30s
                headers:
                  X-A: bc
                body:
                  json:
                    n: 3
            """)
        XCTAssertTrue(flow.isEquivalent(to: block))
        for changed in [
            #"  - { name: a, url: "https://a.test/", method: POST, interval: 31s, headers: { X-A: bc }, body: { json: { n: 3 } } }"#,
            #"  - { name: a, url: "https://a.test/", method: POST, interval: 30s, headers: { X-Ab: c }, body: { json: { n: 3 } } }"#,
            #"  - { name: a, url: "https://a.test/", method: POST, interval: 30s, headers: { X-A: bc }, body: { json: { n: "3" } } }"#,
        ] {
            XCTAssertFalse(flow.isEquivalent(to: try target(changed)), changed)
        }
    }
}
