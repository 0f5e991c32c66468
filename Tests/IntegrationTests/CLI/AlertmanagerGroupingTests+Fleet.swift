import Foundation
import NetVigilTestSupport
import XCTest

/// The fleet rules in the example Alertmanager: grouped by endpoint, so one notification lists the agents (instances
/// and sites) that see another key for it, even when their targets are named differently.
extension AlertmanagerGroupingTests {
    func testFleetPinAlertsAreOneNotificationPerEndpointListingTheAgents() throws {
        let directory = try TemporaryDirectory()
        let alertmanager = try exampleAlertmanager(in: directory)
        func alert(_ name: String, endpoint: String, instance: String? = nil, site: String? = nil,
                   target: String? = nil) -> [String: Any] {
            var labels = ["alertname": name, "severity": "critical", "endpoint": endpoint]
            if let instance { labels["instance"] = instance; labels["job"] = "netvigil" }
            if let site { labels["site"] = site }
            if let target { labels["target"] = target }
            return ["labels": labels, "annotations": ["summary": "\(name) \(endpoint)"]]
        }
        let some = "NetvigilPinMismatchSomeAgents", all = "NetvigilPinMismatchAllAgents"
        let alerts: [[String: Any]] = [
            alert(some, endpoint: "https://shop.example/", instance: "web1", site: "fra1", target: "shop"),
            alert(some, endpoint: "https://shop.example/", instance: "db1", site: "ams1", target: "storefront"),
            alert(some, endpoint: "https://auth.example/", instance: "web2", site: "fra1", target: "auth"),
            alert(all, endpoint: "https://api.example/"),
            alert(all, endpoint: "https://cdn.example/"),
        ]
        let posted = try alertmanager.post(alerts: String(decoding: try JSONSerialization.data(withJSONObject: alerts), as: UTF8.self))
        XCTAssertEqual(posted.status, 0, posted.stdout + posted.stderr)

        _ = try alertmanager.waitForNotifications { $0.count >= 4 }
        Thread.sleep(forTimeInterval: 3)  // nothing more may come
        let received = try alertmanager.notifications().map { entry -> String in
            let group = entry.body["groupLabels"] as? [String: String] ?? [:]
            let agents = entry.alertLabels
                .compactMap { labels in labels["instance"].map { "\($0)@\(labels["site"] ?? "?")" } }.sorted()
            return "\(entry.path) \(group["alertname"] ?? "?") \(group["endpoint"] ?? "?") \(agents.joined(separator: ","))"
        }
        XCTAssertEqual(received.sorted(), [
            "/pager NetvigilPinMismatchAllAgents https://api.example/ ",
            "/pager NetvigilPinMismatchAllAgents https://cdn.example/ ",
            "/pager NetvigilPinMismatchSomeAgents https://auth.example/ web2@fra1",
            "/pager NetvigilPinMismatchSomeAgents https://shop.example/ db1@ams1,web1@fra1",
        ])
    }
}
