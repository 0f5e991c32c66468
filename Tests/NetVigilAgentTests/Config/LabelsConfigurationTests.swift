import XCTest
@testable import NetVigilAgent

/// `labels:` at the top level and per target: merging, validation as Prometheus names, the `endpoint` label.
final class LabelsConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "n.yml")
    }

    private func assertRefused(_ yaml: String, _ fragments: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(yaml), file: file, line: line) { error in
            for fragment in fragments {
                XCTAssertTrue("\(error)".contains(fragment), "\(error) lacks \(fragment)", file: file, line: line)
            }
        }
    }

    func testTargetLabelsOverrideTopLevelOnes() throws {
        let configuration = try load("""
            labels: { site: fra1, team: infra }
            targets:
              - { name: api, url: "https://api.example.com/health", labels: { team: payments, tier: "1" } }
              - { name: web, url: "http://web.example.com:8080/" }
            """)
        XCTAssertEqual(configuration.labels.dictionary, ["site": "fra1", "team": "infra"])
        let api = configuration.targets.targets[0]
        XCTAssertEqual(api.labels.dictionary, ["site": "fra1", "team": "payments", "tier": "1"])
        XCTAssertEqual(api.labels.pairs.map(\.name), ["site", "team", "tier"], "sorted by name")
        XCTAssertEqual(configuration.targets.targets[1].labels.dictionary, ["site": "fra1", "team": "infra"])
        XCTAssertEqual(api.seriesLabels.map(\.0), ["endpoint", "site", "team", "tier"])
        XCTAssertEqual(api.seriesLabels.first?.1, "https://api.example.com/health")
    }

    func testEndpointDropsCredentialsQueryFragmentAndDefaultPorts() {
        XCTAssertEqual(ProbeTarget.endpoint(of: "https://u:p@API.example.com:443/health?token=x#f"), "https://api.example.com/health")
        XCTAssertEqual(ProbeTarget.endpoint(of: "http://web.example.com:8080"), "http://web.example.com:8080/")
        XCTAssertEqual(ProbeTarget.endpoint(of: "https://[2001:db8::1]:8443/a%20b"), "https://[2001:db8::1]:8443/a%20b")
        XCTAssertEqual(ProbeTarget.endpoint(of: "http://web.example.com:443/"), "http://web.example.com:443/")
    }

    /// A loaded target's endpoint is made from the URL parsed once for the target; it says what `endpoint(of:)` of
    /// the URL's text says (which the alert engine applies to stored URLs).
    func testAConfiguredTargetsEndpointIsTheEndpointOfItsURL() throws {
        let urls = ["https://API.example.com:443/health?token=x#f", "http://web.example.com:8080", "https://[2001:DB8::1]:8443/a%20b",
                    "http://web.example.com:443/", "HTTPS://Example.COM", "http://[::1]:80/x/", "smtps://mail.example.com",
                    "smtp://mail.example.com:587", "tls://db.example.com:5432"]
        let items = urls.enumerated().map { "  - { name: t\($0.offset), url: \"\($0.element)\" }" }
        let targets = try load("targets:\n" + items.joined(separator: "\n")).targets.targets
        XCTAssertEqual(targets.count, urls.count)
        for (target, url) in zip(targets, urls) {
            XCTAssertEqual(target.endpoint, ProbeTarget.endpoint(of: url), url)
        }
        XCTAssertEqual(targets[0].endpoint, "https://api.example.com/health")
        XCTAssertEqual(targets[2].endpoint, "https://[2001:db8::1]:8443/a%20b")
        XCTAssertEqual(targets[4].endpoint, "https://example.com/")
        XCTAssertEqual(targets[5].endpoint, "http://[::1]/x/")
    }

    func testAChangeOfTopLevelLabelsChangesTheTargetsFingerprint() throws {
        let yaml = "targets: [{ name: api, url: \"https://api.example.com/\" }]"
        let before = try load("labels: { site: fra1 }\n" + yaml).targets.targets[0]
        let same = try load("labels: { site: fra1 }\n" + yaml).targets.targets[0]
        let after = try load("labels: { site: ams1 }\n" + yaml).targets.targets[0]
        XCTAssertTrue(before.isEquivalent(to: same))
        XCTAssertFalse(before.isEquivalent(to: after))
    }

    func testLabelNamesAreValidatedAsPrometheusNames() {
        assertRefused("labels: { 1site: fra1 }", ["n.yml:1:", "labels.1site", "Prometheus names"])
        assertRefused("labels: { site-name: fra1 }", ["labels.site-name", "Prometheus names"])
        assertRefused("labels: { __name__: x }", ["reserved by Prometheus"])
        assertRefused("labels: { instance: h1 }", ["labels.instance", "set by netvigil", "endpoint"])
        assertRefused("targets: [{ name: a, url: \"http://a/\", labels: { target: b } }]", ["targets[0].labels.target", "set by netvigil"])
        assertRefused("labels: { site: \"\" }", ["labels.site", "must not be empty"])
        assertRefused("labels: { site: [a] }", ["labels.site", "expected a string"])
        assertRefused("labels: [site]", ["n.yml:1:", "labels", "expected a mapping of label names"])
        assertRefused("labels: { site: \"a\\nb\" }", ["one line"])
        assertRefused("labels: { site: a, site: b }", ["duplicate key"])
        let many = (0...16).map { "l\($0): v" }.joined(separator: ", ")
        assertRefused("labels: { \(many) }", ["at most 16 labels"])
    }

    func testMistypedKeyStillSuggestsLabels() {
        assertRefused("lables: { site: fra1 }", ["unknown key (did you mean labels?)"])
        assertRefused("targets: [{ name: a, url: \"http://a/\", lables: { site: x } }]", ["did you mean labels?"])
    }

    func testValidNamesPass() {
        for name in ["site", "_x", "Team_2", "a"] { XCTAssertTrue(TargetLabels.isPrometheusName(name), name) }
        for name in ["", "2a", "a-b", "a.b", "é"] { XCTAssertFalse(TargetLabels.isPrometheusName(name), name) }
    }

    /// `/v1/status` shows each target's endpoint and labels.
    func testStatusSnapshotShowsEndpointAndLabels() throws {
        let configuration = try load("""
            labels: { site: fra1 }
            targets: [{ name: api, url: "https://api.example.com/health?key=secret" }]
            """)
        let states = TargetStates()
        states.configure(configuration.targets.targets)
        let snapshot = try XCTUnwrap(states.snapshot("api"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: try encoder.encode(snapshot)) as? [String: Any])
        XCTAssertEqual(json["endpoint"] as? String, "https://api.example.com/health")
        XCTAssertEqual(json["labels"] as? [String: String], ["site": "fra1"])
    }
}
