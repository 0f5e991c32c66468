import Foundation
import NetVigilTestSupport
import XCTest

/// deploy/alertmanager.example.yml in a real Alertmanager (Debian `prometheus-alertmanager`, started on loopback):
/// one endpoint failing for many agents is one notification, and a pin mismatch inhibits TargetDown.
final class AlertmanagerGroupingTests: XCTestCase {
    /// The example as shipped in a real Alertmanager, with the receivers pointed at the test's webhook and the group
    /// waits shortened so the test does not wait 30 s; grouping, routes and inhibition are untouched.
    func exampleAlertmanager(in directory: TemporaryDirectory) throws -> AlertmanagerProcess {
        guard AlertmanagerProcess.isInstalled else {
            struct Missing: Error, CustomStringConvertible {
                var description: String { "prometheus-alertmanager missing: make test installs the Debian package" }
            }
            throw Missing()
        }
        let example = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/alertmanager.example.yml")
        let shipped = try String(contentsOf: example, encoding: .utf8)
        return try AlertmanagerProcess(directory: directory) { receiver in
            shipped.replacingOccurrences(of: "http://127.0.0.1:5001/", with: receiver + "/")
                .replacingOccurrences(of: "group_wait: 30s", with: "group_wait: 2s")
                .replacingOccurrences(of: "group_wait: 10s", with: "group_wait: 2s")
        }
    }

    func testOneEndpointFailingForManyAgentsIsOneNotificationAndAPinMismatchInhibitsTargetDown() throws {
        let directory = try TemporaryDirectory()
        let alertmanager = try exampleAlertmanager(in: directory)

        // Five agents see target api fail, one of them (web1) because of a pin mismatch; one agent sees db fail.
        func alert(_ name: String, _ severity: String, instance: String, target: String) -> [String: Any] {
            ["labels": ["alertname": name, "severity": severity, "instance": instance, "target": target, "job": "netvigil"],
             "annotations": ["summary": "\(name) \(target) from \(instance)"]]
        }
        var alerts = (1...5).map { alert("NetvigilTargetDown", "warning", instance: "web\($0)", target: "api") }
        alerts.append(alert("NetvigilPinMismatch", "critical", instance: "web1", target: "api"))
        alerts.append(alert("NetvigilTargetDown", "warning", instance: "web1", target: "db"))
        let posted = try alertmanager.post(alerts: String(decoding: try JSONSerialization.data(withJSONObject: alerts), as: UTF8.self))
        XCTAssertEqual(posted.status, 0, posted.stdout + posted.stderr)

        _ = try alertmanager.waitForNotifications { $0.count >= 3 }
        Thread.sleep(forTimeInterval: 3)  // nothing more may come: no per-agent notifications
        let received = try alertmanager.notifications()
        func summary(_ entry: AlertmanagerProcess.Notification) -> String {
            let group = entry.body["groupLabels"] as? [String: String] ?? [:]
            let instances = entry.alertLabels.compactMap { $0["instance"] }.sorted()
            return "\(entry.path) \(group["alertname"] ?? "?") \(group["target"] ?? "?") \(instances.joined(separator: ","))"
        }
        XCTAssertEqual(received.map(summary).sorted(), [
            "/pager NetvigilPinMismatch api web1",
            "/team NetvigilTargetDown api web2,web3,web4,web5",
            "/team NetvigilTargetDown db web1",
        ])
    }
}
