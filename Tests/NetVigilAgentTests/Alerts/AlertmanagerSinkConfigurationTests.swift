import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `alerts.sinks[].alertmanager` in the configuration: values, defaults and located errors.
final class AlertmanagerSinkConfigurationTests: XCTestCase {
    private func sink(_ yaml: String) throws -> AlertmanagerSink {
        let section = try AgentConfiguration(yaml: yaml, file: "netvigil.yml").alerts
        guard case .alertmanager(let sink) = section.sinks.first?.kind else {
            XCTFail("not an alertmanager sink: \(section.sinks)")
            throw CocoaError(.coderInvalidValue)
        }
        return sink
    }

    private func assertError(_ yaml: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try AgentConfiguration(yaml: yaml, file: "netvigil.yml"), file: file, line: line) { error in
            XCTAssertTrue(error is ConfigError, "\(error)", file: file, line: line)
            XCTAssertEqual("\(error)", expected, file: file, line: line)
        }
    }

    func testTheDocumentedExample() throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("am-ca.pem", AlertFixtures.certificates.pinned.pem)
        let sink = try sink("""
            alerts:
              sinks:
                - name: am
                  alertmanager:
                    url: https://alertmanager.example.com:9093
                    timeout: 5s
                    headers: {Authorization: Bearer s3cret, X-Scope: fleet}
                    tls: { ca: \(ca), min_version: "1.3" }
                    labels: {team: payments, site: fra1}
                    resend_interval: 30s
            """)
        XCTAssertEqual(sink.url.absoluteString, "https://alertmanager.example.com:9093")
        XCTAssertEqual(sink.alertsEndpoint, "https://alertmanager.example.com:9093/api/v2/alerts")
        XCTAssertEqual(sink.timeout, .seconds(5))
        XCTAssertEqual(sink.labels, ["team": "payments", "site": "fra1"])
        XCTAssertEqual(sink.resendInterval, .seconds(30))
        XCTAssertEqual(sink.validity, .seconds(90))
        XCTAssertEqual(sink.tls.caPaths, [ca])
        XCTAssertNotNil(sink.tls.trustStore)
        XCTAssertEqual(sink.tls.tls.minimumVersion, .tls13)
        // Header secrets never print.
        XCTAssertEqual(sink.headers.map(\.description), ["Authorization: <redacted>", "X-Scope: fleet"])
        XCTAssertEqual("\(sink)", "alertmanager https://alertmanager.example.com:9093")
        let section = try AgentConfiguration(yaml: "alerts:\n  sinks:\n    - { name: am, alertmanager: { url: 'http://u:pw@am:9093', headers: {X-Api-Key: k3y} } }\n",
                                             file: "netvigil.yml").alerts
        XCTAssertEqual("\(section.sinks)", "[am (alertmanager http://am:9093)]")
        XCTAssertFalse("\(section.sinks)".contains("k3y"))
    }

    func testDefaultsAndTheAlertsEndpoint() throws {
        let plain = try sink("alerts:\n  sinks:\n    - { name: am, alertmanager: { url: 'http://127.0.0.1:9093' } }\n")
        XCTAssertEqual(plain.timeout, .seconds(10))
        XCTAssertEqual(plain.resendInterval, .seconds(60))
        XCTAssertEqual(plain.validity, .seconds(180))
        XCTAssertEqual(plain.labels, [:])
        XCTAssertEqual(plain.headers, [])
        XCTAssertNil(plain.tls.trustStore)
        XCTAssertEqual(plain.alertsEndpoint, "http://127.0.0.1:9093/api/v2/alerts")
        // A route prefix is kept; a URL naming the endpoint is used as is.
        let prefixed = try sink("alerts:\n  sinks:\n    - { name: am, alertmanager: { url: 'http://mon/alertmanager/' } }\n")
        XCTAssertEqual(prefixed.alertsEndpoint, "http://mon/alertmanager/api/v2/alerts")
        let full = try sink("alerts:\n  sinks:\n    - { name: am, alertmanager: { url: 'http://mon:9093/api/v2/alerts' } }\n")
        XCTAssertEqual(full.alertsEndpoint, "http://mon:9093/api/v2/alerts")
    }

    func testLocatedErrors() {
        func yaml(_ settings: String) -> String { "alerts:\n  sinks:\n    - name: am\n      alertmanager: \(settings)\n" }
        assertError(yaml("{ url: http://am:9093, resend_intervall: 30s }"),
                    "netvigil.yml:4:44: alerts.sinks[0].alertmanager.resend_intervall: unknown key (did you mean resend_interval?); expected one of: url, timeout, headers, tls, labels, resend_interval")
        assertError(yaml("{ url: 'am:9093' }"),
                    "netvigil.yml:4:28: alerts.sinks[0].alertmanager.url: expected an http:// or https:// URL")
        assertError(yaml("{ url: http://am:9093, labels: { 1team: x } }"),
                    "netvigil.yml:4:61: alerts.sinks[0].alertmanager.labels.1team: label names are Prometheus names: letters, digits and '_', not starting with a digit (at most 128)")
        assertError(yaml("{ url: http://am:9093, labels: { __meta: x } }"),
                    "netvigil.yml:4:62: alerts.sinks[0].alertmanager.labels.__meta: label names starting with __ are reserved by Prometheus")
        assertError(yaml("{ url: http://am:9093, labels: { severity: page } }"),
                    "netvigil.yml:4:64: alerts.sinks[0].alertmanager.labels.severity: \"severity\" is set by netvigil; reserved: alertname, endpoint, flag, instance, job, kind, le, outcome, phase, quantile, severity, sink, target, version")
        assertError(yaml("{ url: http://am:9093, labels: { team: '' } }"),
                    "netvigil.yml:4:60: alerts.sinks[0].alertmanager.labels.team: must not be empty")
        assertError(yaml("{ url: http://am:9093, labels: [team] }"),
                    "netvigil.yml:4:52: alerts.sinks[0].alertmanager.labels: expected a mapping of label names to values, e.g. {site: fra1}, got a list")
        assertError(yaml("{ url: http://am:9093, headers: { Content-Type: text/plain } }"),
                    "netvigil.yml:4:55: alerts.sinks[0].alertmanager.headers: Content-Type is set by netvigil and cannot be configured")
        assertError(yaml("{ url: http://am:9093, resend_interval: 500ms }"),
                    "netvigil.yml:4:61: alerts.sinks[0].alertmanager.resend_interval: must be at least 1s")
        assertError(yaml("{ url: https://am:9093, tls: { pins: [x] } }"),
                    "netvigil.yml:4:52: alerts.sinks[0].alertmanager.tls.pins: unknown key; expected one of: ca, system_roots, min_version")
        assertError(yaml("{ url: https://am:9093, tls: { ca: /nonexistent/ca.pem } }"),
                    "netvigil.yml:4:56: alerts.sinks[0].alertmanager.tls.ca: CA file /nonexistent/ca.pem does not exist")
        assertError("alerts:\n  sinks:\n    - { name: am, webhook: { url: http://a/ }, alertmanager: { url: http://am:9093 } }\n",
                    "netvigil.yml:3:62: alerts.sinks[0].alertmanager: a sink is either webhook or alertmanager, not both")
    }
}
