import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

final class AlertsConfigurationTests: XCTestCase {
    private func alerts(_ yaml: String) throws -> AlertsSection {
        try AgentConfiguration(yaml: yaml, file: "netvigil.yml").alerts
    }

    private func assertError(_ yaml: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try alerts(yaml), file: file, line: line) { error in
            XCTAssertTrue(error is ConfigError, "\(error)", file: file, line: line)
            XCTAssertEqual("\(error)", expected, file: file, line: line)
        }
    }

    func testDefaultsWithoutAnAlertsSection() throws {
        let section = try alerts("log: { level: info }\n")
        XCTAssertTrue(section.sinks.isEmpty)
        // Every rule is on by default except key_changed (a key rotation is not a problem for most targets).
        XCTAssertEqual(section.rules.enabledKinds, AlertRuleKind.allCases.filter { $0 != .keyChanged })
        XCTAssertEqual(section.rules[.pinMismatch], AlertRule(threshold: 1, resolveThreshold: 1, reminder: .seconds(21_600), sendResolved: true))
        XCTAssertEqual(section.rules[.certExpiring].within, .seconds(14 * 86_400))
        XCTAssertEqual(section.rules[.certExpiring].reminder, .seconds(86_400))
        XCTAssertEqual(section.rules[.targetDown].threshold, 3)
        XCTAssertEqual(section.rules[.targetDown].resolveThreshold, 2)
        XCTAssertEqual(section.retry, AlertRetry(initial: .seconds(1), max: .seconds(300)))
    }

    func testTheDocumentedExample() throws {
        let section = try alerts("""
            alerts:
              sinks:
                - { name: pager, webhook: { url: http://127.0.0.1:9000/hook, timeout: 5s, headers: {X-Team: ops, Authorization: Bearer s3cret} } }
                - { name: script, exec: { command: [/bin/sh, -c, 'cat > /dev/null'], timeout: 10s } }
                - { name: by-name, exec: { command: [true] } }
              rules:
                pin_mismatch:  { threshold: 1, reminder: 6h, send_resolved: true }
                trust_failure: { threshold: 2, reminder: off, send_resolved: false }
                cert_expiring: { within: 30d, reminder: 24h, send_resolved: true }
                target_down:   { threshold: 3, resolve_threshold: 2, reminder: 6h, send_resolved: true, enabled: no }
              retry: { initial: 2s, max: 10m }
            """)
        XCTAssertEqual(section.sinkNames, ["pager", "script", "by-name"])
        guard case .webhook(let webhook) = section.sink(named: "pager")?.kind else { return XCTFail("pager is a webhook") }
        XCTAssertEqual(webhook.url.absoluteString, "http://127.0.0.1:9000/hook")
        XCTAssertEqual(webhook.timeout, .seconds(5))
        XCTAssertEqual(webhook.headers, [AlertHeader(name: "X-Team", value: "ops"), AlertHeader(name: "Authorization", value: "Bearer s3cret")])
        // Credentials never print.
        XCTAssertEqual(webhook.headers.map(\.description), ["X-Team: ops", "Authorization: <redacted>"])
        XCTAssertFalse("\(section.sinks)".contains("s3cret"))
        guard case .exec(let exec) = section.sink(named: "script")?.kind else { return XCTFail("script is exec") }
        XCTAssertEqual(exec.command, ["/bin/sh", "-c", "cat > /dev/null"])
        XCTAssertEqual(exec.executable, "/bin/sh")
        XCTAssertEqual(exec.timeout, .seconds(10))
        guard case .exec(let byName) = section.sink(named: "by-name")?.kind else { return XCTFail("by-name is exec") }
        XCTAssertTrue(byName.executable.hasPrefix("/") && byName.executable.hasSuffix("/true"), byName.executable)
        XCTAssertEqual(byName.timeout, .seconds(30))
        XCTAssertNil(section.rules[.trustFailure].reminder)
        XCTAssertEqual(section.rules[.trustFailure].threshold, 2)
        XCTAssertFalse(section.rules[.trustFailure].sendResolved)
        XCTAssertEqual(section.rules[.certExpiring].within, .seconds(30 * 86_400))
        XCTAssertEqual(section.rules.enabledKinds, [.pinMismatch, .trustFailure, .certExpiring, .pinsExpiring, .pinsExpired])
        XCTAssertEqual(section.retry, AlertRetry(initial: .seconds(2), max: .seconds(600)))
    }

    func testUnknownKeysAreLocatedErrors() {
        assertError("""
            alerts:
              sinks:
                - name: pager
                  webhook:
                    url: http://127.0.0.1:9000/hook
                    timout: 5s
            """, "netvigil.yml:6:9: alerts.sinks[0].webhook.timout: unknown key (did you mean timeout?); expected one of: url, timeout, headers")
        assertError("""
            alerts:
              rules:
                target_down: { within: 3d }
            """, "netvigil.yml:3:20: alerts.rules.target_down.within: unknown key; expected one of: enabled, threshold, resolve_threshold, reminder, send_resolved")
        assertError("""
            alerts:
              rules:
                pin_mismatches: { threshold: 2 }
            """, "netvigil.yml:3:5: alerts.rules.pin_mismatches: unknown key (did you mean pin_mismatch?); expected one of: pin_mismatch, trust_failure, cert_expiring, target_down, pins_expiring, pins_expired, key_changed")
        assertError("""
            alerts:
              rules:
                target_down: { inhibit: false }
            """, "netvigil.yml:3:20: alerts.rules.target_down.inhibit: unknown key; expected one of: enabled, threshold, resolve_threshold, reminder, send_resolved")
        assertError("alerts:\n  rety: { initial: 1s }\n",
                    "netvigil.yml:2:3: alerts.rety: unknown key (did you mean retry?); expected one of: sinks, rules, retry")
    }

    func testInhibitIsOnByDefaultAndCanBeTurnedOffPerCauseRule() throws {
        let defaults = try alerts("log: { level: info }\n").rules
        XCTAssertTrue(defaults[.pinMismatch].inhibit && defaults[.trustFailure].inhibit && defaults[.certExpiring].inhibit)
        let section = try alerts("""
            alerts:
              rules:
                pin_mismatch: { inhibit: false }
                cert_expiring: { inhibit: true, within: 7d }
            """)
        XCTAssertFalse(section.rules[.pinMismatch].inhibit)
        XCTAssertTrue(section.rules[.certExpiring].inhibit)
        XCTAssertTrue(section.rules[.trustFailure].inhibit)
        assertError("alerts:\n  rules:\n    trust_failure: { inhibit: sometimes }\n",
                    "netvigil.yml:3:31: alerts.rules.trust_failure.inhibit: expected true or false, got a single value")
    }

    func testSinkShapeErrors() {
        // Wrong types where a sink or its settings are expected.
        assertError("alerts:\n  sinks: { pager: { webhook: { url: http://x/ } } }\n",
                    "netvigil.yml:2:10: alerts.sinks: expected a list, got a mapping")
        assertError("alerts:\n  sinks:\n    - pager\n",
                    "netvigil.yml:3:7: alerts.sinks[0]: expected a mapping of name, webhook, exec, alertmanager, got a single value")
        assertError("alerts:\n  sinks:\n    - { name: pager, webhook: http://127.0.0.1:9000/hook }\n",
                    "netvigil.yml:3:31: alerts.sinks[0].webhook: expected a mapping of url, timeout, headers, got a single value")
        assertError("alerts:\n  sinks:\n    - { name: pager }\n",
                    "netvigil.yml:3:7: alerts.sinks[0]: sink \"pager\" needs webhook: {url: ...}, exec: {command: [...]} or alertmanager: {url: ...}")
        assertError("alerts:\n  sinks:\n    - { name: pager, webhook: { url: http://a/ }, exec: { command: [true] } }\n",
                    "netvigil.yml:3:57: alerts.sinks[0].exec: a sink is either webhook or exec, not both")
        assertError("alerts:\n  sinks:\n    - { webhook: { url: http://a/ } }\n",
                    "netvigil.yml:3:7: alerts.sinks[0].name: required key is missing")
        assertError("alerts:\n  sinks:\n    - { name: 'pa ger', webhook: { url: http://a/ } }\n",
                    "netvigil.yml:3:15: alerts.sinks[0].name: sink names may use letters, digits, _, - and . only")
        assertError("alerts:\n  sinks:\n    - { name: a, exec: { command: [true] } }\n    - { name: a, webhook: { url: http://a/ } }\n",
                    "netvigil.yml:4:15: alerts.sinks[1].name: sink name \"a\" is used twice (first at netvigil.yml:3:15); names must be unique")
    }

    func testWebhookAndExecValueErrors() {
        assertError("alerts:\n  sinks:\n    - { name: p, webhook: { url: 'ftp://example/hook' } }\n",
                    "netvigil.yml:3:34: alerts.sinks[0].webhook.url: expected an http:// or https:// URL")
        assertError("alerts:\n  sinks:\n    - { name: p, webhook: { url: http://a/, headers: [X-Team] } }\n",
                    "netvigil.yml:3:54: alerts.sinks[0].webhook.headers: expected a mapping of header names to values, got a list")
        assertError("alerts:\n  sinks:\n    - { name: p, webhook: { url: http://a/, headers: { Idempotency-Key: x } } }\n",
                    "netvigil.yml:3:56: alerts.sinks[0].webhook.headers: Idempotency-Key is set by netvigil and cannot be configured")
        assertError("alerts:\n  sinks:\n    - { name: s, exec: { command: [] } }\n",
                    "netvigil.yml:3:35: alerts.sinks[0].exec.command: expected a non-empty list: [program, arguments...]")
        assertError("alerts:\n  sinks:\n    - { name: s, exec: { command: /bin/true } }\n",
                    "netvigil.yml:3:35: alerts.sinks[0].exec.command: expected a list, got a single value")
        assertError("alerts:\n  sinks:\n    - { name: s, exec: { command: [/nonexistent/notify, --urgent] } }\n",
                    "netvigil.yml:3:36: alerts.sinks[0].exec.command[0]: /nonexistent/notify does not exist or is not executable")
        assertError("alerts:\n  sinks:\n    - { name: s, exec: { command: [bin/notify] } }\n",
                    "netvigil.yml:3:36: alerts.sinks[0].exec.command[0]: use an absolute path or a program name found in PATH")
        assertError("alerts:\n  sinks:\n    - { name: s, exec: { command: [netvigil-no-such-program] } }\n",
                    "netvigil.yml:3:36: alerts.sinks[0].exec.command[0]: netvigil-no-such-program was not found in PATH")
    }

    func testRuleAndRetryValueErrors() {
        assertError("alerts:\n  rules:\n    target_down: { threshold: 0 }\n",
                    "netvigil.yml:3:31: alerts.rules.target_down.threshold: expected a number from 1 to 10000")
        assertError("alerts:\n  rules:\n    pin_mismatch: { reminder: soon }\n",
                    "netvigil.yml:3:31: alerts.rules.pin_mismatch.reminder: expected a duration like 30d")
        assertError("alerts:\n  rules:\n    pin_mismatch: { send_resolved: maybe }\n",
                    "netvigil.yml:3:36: alerts.rules.pin_mismatch.send_resolved: expected true or false, got a single value")
        assertError("alerts:\n  retry: { initial: 10s, max: 5s }\n",
                    "netvigil.yml:2:31: alerts.retry.max: must not be shorter than retry.initial (10s)")
    }

    func testRetryDelaysGrowExponentiallyWithinBounds() {
        let retry = AlertRetry(initial: .seconds(1), max: .seconds(300))
        for attempts in 1...30 {
            let cap = min(300_000, 1_000 << min(attempts - 1, 20))
            for _ in 0..<20 {
                let delay = ConfigDuration.milliseconds(retry.delay(afterAttempts: attempts))
                XCTAssertGreaterThanOrEqual(delay, 1_000)
                XCTAssertLessThanOrEqual(delay, Int64(cap))
            }
        }
        XCTAssertEqual(retry.delay(afterAttempts: 1), .seconds(1))
        // Full jitter: late delays spread over the whole range.
        let late = (0..<200).map { _ in ConfigDuration.milliseconds(retry.delay(afterAttempts: 20)) }
        XCTAssertLessThan(late.min()!, 150_000)
        XCTAssertGreaterThan(late.max()!, 150_000)
    }
}
