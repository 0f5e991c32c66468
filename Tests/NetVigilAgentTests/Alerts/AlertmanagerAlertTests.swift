import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// The labels of one Alertmanager alert: netvigil's own, the target's, the sink's, in that order of precedence.
final class AlertmanagerAlertTests: XCTestCase {
    func testTargetLabelsAndEndpointJoinTheSinkLabels() throws {
        let configuration = try AgentConfiguration(yaml: """
            labels: { site: fra1, team: payments }
            targets:
              - { name: api, url: "https://api.example.com:443/health?key=s3cret", labels: { team: checkout } }
            """, file: "t.yml")
        let target = try XCTUnwrap(configuration.targets.targets.first)
        let payload = AlertPayload(kind: "pin_mismatch", state: .firing, target: "api", url: target.url,
                                   time: Timestamp(milliseconds: 1_795_000_000_000), idempotencyKey: "k", message: "pin mismatch",
                                   reminder: false, since: nil,
                                   report: PinValidationReport(record: AlertFixtures.record(at: AlertFixtures.at(0)), context: AlertFixtures.context()),
                                   labels: target.labels, endpoint: target.endpoint)
        let alert = AlertmanagerAlert(payload: payload, instance: "web1",
                                      labels: ["team": "sre", "tier": "gold", "severity": "info"],
                                      validUntil: Timestamp(milliseconds: 1_795_000_180_000))
        XCTAssertEqual(alert.labels, [
            "alertname": "NetvigilPinMismatch", "severity": "critical", "target": "api", "instance": "web1",
            "endpoint": "https://api.example.com/health", "site": "fra1", "team": "checkout", "tier": "gold",
        ])
    }

    /// Every rule kind has its own alertname; the agent-only ones (pins expiry, key change) included.
    func testEveryRuleKindHasItsOwnAlertname() {
        let names = AlertRuleKind.allCases.map(\.alertName)
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertTrue(names.allSatisfy { $0.hasPrefix("Netvigil") && !$0.contains("_") }, "\(names)")
        for (kind, name, severity) in [(AlertRuleKind.pinsExpiring, "NetvigilPinsExpiring", "warning"),
                                       (.pinsExpired, "NetvigilPinsExpired", "critical"), (.keyChanged, "NetvigilKeyChanged", "warning")] {
            let payload = AlertPayload(kind: kind.rawValue, state: .firing, target: "api", url: "https://api.example.com/",
                                       time: AlertFixtures.at(0), idempotencyKey: "k", message: kind.title,
                                       report: PinValidationReport(record: AlertFixtures.record(at: AlertFixtures.at(0)), context: AlertFixtures.context()))
            let alert = AlertmanagerAlert(payload: payload, instance: "web1", labels: [:], validUntil: AlertFixtures.at(180))
            XCTAssertEqual(alert.labels["alertname"], name)
            XCTAssertEqual(alert.labels["severity"], severity)
        }
    }
}
