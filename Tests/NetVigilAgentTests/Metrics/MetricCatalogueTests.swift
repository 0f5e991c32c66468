import XCTest
@testable import NetVigilAgent

/// The metric catalogue follows the Prometheus naming rules `promtool check metrics` lints, and the verdict mappings.
final class MetricCatalogueTests: XCTestCase {
    private static func isValidName(_ name: String, allowColon: Bool) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || (allowColon && $0 == ":")
        }
    }

    func testNamesTypesLabelsAndHelp() {
        let catalogue = AgentMetrics.catalogue
        XCTAssertEqual(Set(catalogue.map(\.name)).count, catalogue.count, "duplicate metric names")
        for metric in catalogue {
            // netvigil's own, or the standard process metrics Prometheus clients export under these names.
            let standard = ["process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "process_max_fds",
                            "process_start_time_seconds"]
            XCTAssertTrue(metric.name.hasPrefix("netvigil_") || standard.contains(metric.name), metric.name)
            XCTAssertTrue(Self.isValidName(metric.name, allowColon: true), metric.name)
            // Counters end in _total; nothing else does (promtool lints both).
            XCTAssertEqual(metric.kind == .counter, metric.name.hasSuffix("_total"), metric.name)
            XCTAssertFalse(metric.help.isEmpty, metric.name)
            XCTAssertFalse(metric.help.contains("\n") || metric.help.contains("\\"), metric.name)
            XCTAssertEqual(Set(metric.labels).count, metric.labels.count, metric.name)
            for label in metric.labels {
                XCTAssertTrue(Self.isValidName(label, allowColon: false) && !label.hasPrefix("__"), "\(metric.name) \(label)")
            }
        }
        XCTAssertEqual(AgentMetrics.helpTexts.count, catalogue.count)
    }

    func testTheIssueListIsCovered() {
        let names = Set(AgentMetrics.catalogue.map(\.name))
        for required in [
            "netvigil_probe_success", "netvigil_probe_duration_seconds", "netvigil_probe_http_status_code",
            "netvigil_tls_trusted", "netvigil_tls_pin_match", "netvigil_tls_earliest_cert_expiry_timestamp_seconds",
            "netvigil_probes_total", "netvigil_reachability_status", "netvigil_reachability_flag",
            "netvigil_netlink_resyncs_total", "netvigil_alerts_pending", "netvigil_alerts_sent_total", "netvigil_build_info",
        ] {
            XCTAssertTrue(names.contains(required), required)
        }
        let labels = Dictionary(uniqueKeysWithValues: AgentMetrics.catalogue.map { ($0.name, $0.labels) })
        XCTAssertEqual(labels["netvigil_probe_duration_seconds"], ["target", "phase"])
        XCTAssertEqual(labels["netvigil_reachability_flag"], ["target", "flag"])
        XCTAssertEqual(labels["netvigil_alerts_sent_total"], ["sink", "kind"])
        XCTAssertEqual(labels["netvigil_probes_total"], ["target", "outcome"])
        XCTAssertEqual(labels["netvigil_build_info"], ["version"])
    }

    func testVerdictValues() {
        XCTAssertEqual(AgentMetrics.trustedValue(.trusted), 1)
        XCTAssertEqual(AgentMetrics.trustedValue(.untrusted(reason: "chainInvalid")), 0)
        XCTAssertEqual(AgentMetrics.trustedValue(.untrusted(reason: "hostnameMismatch")), 0)
        XCTAssertNil(AgentMetrics.trustedValue(nil))
        XCTAssertEqual(AgentMetrics.pinMatchValue(.matched), 1)
        XCTAssertEqual(AgentMetrics.pinMatchValue(.mismatch), 0)
        XCTAssertEqual(AgentMetrics.pinMatchValue(.mismatchReported), 0)
        XCTAssertEqual(AgentMetrics.pinMatchValue(.notPinned), -1)
        XCTAssertEqual(AgentMetrics.pinMatchValue(.expired), -1)
        XCTAssertNil(AgentMetrics.pinMatchValue(.notEvaluated))
        XCTAssertNil(AgentMetrics.pinMatchValue(nil))
    }
}
