import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// The new rules and `within` forms in `alerts.rules`, and a target's own `rules:` over them, with located errors.
final class AlertRuleOverrideConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "netvigil.yml")
    }

    private func assertError(_ yaml: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(yaml), file: file, line: line) { error in
            XCTAssertTrue(error is ConfigError, "\(error)", file: file, line: line)
            XCTAssertEqual("\(error)", expected, file: file, line: line)
        }
    }

    func testDefaultsOfTheNewRules() throws {
        let rules = try load("log: { level: info }\n").alerts.rules
        XCTAssertEqual(rules[.pinsExpiring], AlertRule(reminder: .seconds(86_400), window: .duration(.seconds(30 * 86_400))))
        XCTAssertTrue(rules[.pinsExpired].enabled)
        XCTAssertEqual(rules[.keyChanged], AlertRule(enabled: false, reminder: nil, sendResolved: false))
        XCTAssertEqual(rules[.certExpiring].window, .automatic(.seconds(14 * 86_400)))
        XCTAssertEqual(AlertRuleKind.pinsExpired.alertName, "NetvigilPinsExpired")
        XCTAssertEqual(AlertRuleKind.pinsExpired.severity, "critical")
    }

    func testGlobalAndPerTargetSettings() throws {
        let configuration = try load("""
            alerts:
              rules:
                cert_expiring: { within: 21d }
                pins_expiring: { within: 45d, reminder: 12h }
                key_changed: { enabled: true, send_resolved: true }
            targets:
              - name: api
                url: https://api.example.com/health
                rules:
                  cert_expiring: { within: 33% }
                  key_changed: { enabled: false }
              - name: web
                url: https://www.example.com/
                rules:
                  cert_expiring: { within: 2.5% }
                  target_down: { threshold: 5, reminder: off }
              - name: plain
                url: https://plain.example.com/
            """)
        let rules = configuration.alerts.rules
        XCTAssertEqual(rules[.certExpiring].window, .duration(.seconds(21 * 86_400)))
        XCTAssertEqual(rules[.pinsExpiring].within, .seconds(45 * 86_400))
        XCTAssertEqual(rules[.pinsExpiring].reminder, .seconds(43_200))
        XCTAssertTrue(rules[.keyChanged].enabled && rules[.keyChanged].sendResolved)
        let targets = configuration.targets.targets
        XCTAssertEqual(rules.rule(.certExpiring, for: targets[0].alertRules).window, .share(0.33))
        XCTAssertFalse(rules.rule(.keyChanged, for: targets[0].alertRules).enabled)
        XCTAssertEqual(rules.rule(.certExpiring, for: targets[1].alertRules).window, .share(0.025))
        XCTAssertEqual(rules.rule(.targetDown, for: targets[1].alertRules).threshold, 5)
        XCTAssertNil(rules.rule(.targetDown, for: targets[1].alertRules).reminder)
        // Settings a target does not give stay global.
        XCTAssertEqual(rules.rule(.targetDown, for: targets[1].alertRules).resolveThreshold, 2)
        XCTAssertTrue(targets[2].alertRules.isEmpty)
        XCTAssertEqual(configuration.targets.alertRules.keys.sorted(), ["api", "plain", "web"])
    }

    func testWithinErrorsAreLocated() {
        assertError("alerts:\n  rules:\n    cert_expiring: { within: 0% }\n",
                    "netvigil.yml:3:30: alerts.rules.cert_expiring.within: expected a share of the certificate's lifetime above 0% and at most 100%, such as 33%")
        assertError("alerts:\n  rules:\n    cert_expiring: { within: 150% }\n",
                    "netvigil.yml:3:30: alerts.rules.cert_expiring.within: expected a share of the certificate's lifetime above 0% and at most 100%, such as 33%")
        assertError("alerts:\n  rules:\n    pins_expiring: { within: 33% }\n",
                    "netvigil.yml:3:30: alerts.rules.pins_expiring.within: a share of the lifetime applies to cert_expiring only; use a duration such as 30d")
        assertError("alerts:\n  rules:\n    cert_expiring: { within: soon }\n",
                    "netvigil.yml:3:30: alerts.rules.cert_expiring.within: expected a duration like 30d")
        assertError("alerts:\n  rules:\n    key_changed: { within: 1d }\n",
                    "netvigil.yml:3:20: alerts.rules.key_changed.within: unknown key; expected one of: enabled, threshold, resolve_threshold, reminder, send_resolved")
    }

    func testTargetRulesErrorsAreLocated() {
        let head = "targets:\n  - name: api\n    url: https://api.example.com/\n"
        assertError(head + "    rules:\n      cert_expiring: { within: 30s }\n",
                    "netvigil.yml:5:32: targets[0].rules.cert_expiring.within: must be at least 1m")
        assertError(head + "    rules:\n      cert_expiry: { within: 7d }\n",
                    "netvigil.yml:5:7: targets[0].rules.cert_expiry: unknown key (did you mean cert_expiring?); expected one of: pin_mismatch, trust_failure, cert_expiring, target_down, pins_expiring, pins_expired, key_changed")
        assertError(head + "    rules:\n      target_down: { within: 7d }\n",
                    "netvigil.yml:5:22: targets[0].rules.target_down.within: unknown key; expected one of: enabled, threshold, resolve_threshold, reminder, send_resolved")
        assertError(head + "    rules:\n      key_changed: { enabled: maybe }\n",
                    "netvigil.yml:5:31: targets[0].rules.key_changed.enabled: expected true or false, got a single value")
        assertError(head + "    rules: [cert_expiring]\n",
                    "netvigil.yml:4:12: targets[0].rules: expected a mapping of pin_mismatch, trust_failure, cert_expiring, target_down, pins_expiring, pins_expired, key_changed, got a list")
    }
}
