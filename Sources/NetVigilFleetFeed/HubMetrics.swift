import NetVigilFleet
import Prometheus

/// The hub's `/metrics`: fleet-level series from the last evaluation (no database round trip per scrape), written
/// by swift-prometheus into a registry made for the scrape (the values live in ``FleetHubState``).
enum HubMetrics {
    static func exposition(_ state: FleetHubState) -> [UInt8] {
        let registry = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = [], _ value: Double) {
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
                .set(value)
        }
        func counter(_ name: String, _ help: String, _ labels: [(String, String)] = [], _ value: Int) {
            registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
                .increment(by: Int64(value))
        }
        let counters = state.snapshotOfCounters
        if let report = state.lastReport {
            let summary = report.summary
            for (agentState, count) in [("ok", summary.healthy), ("silent", summary.silent), ("behind", summary.behind)] {
                gauge("netvigil_fleet_agents", "Agents by state at the last evaluation (ok, silent, behind)",
                      [("state", agentState)], Double(count))
            }
            for (verdict, count) in [("up", summary.up), ("partial", summary.partial), ("down", summary.down), ("unknown", summary.unknown)] {
                gauge("netvigil_fleet_endpoints", "Endpoints by consensus verdict", [("verdict", verdict)], Double(count))
            }
            for endpoint in report.endpoints {
                gauge("netvigil_fleet_endpoint_keys",
                      "Distinct leaf keys the agents are served per endpoint (over 1: see the key groups)",
                      [("endpoint", endpoint.endpoint)], Double(endpoint.keys.count))
                gauge("netvigil_fleet_endpoint_down_agents", "Agents that see the endpoint down",
                      [("endpoint", endpoint.endpoint)], Double(endpoint.down.count))
            }
            gauge("netvigil_fleet_interceptions", "Key groups judged a path interception", [], Double(summary.interceptions))
        }
        for kind in FleetCondition.Kind.allCases {
            gauge("netvigil_fleet_alerts_firing", "Fleet alert conditions true at the last evaluation",
                  [("kind", kind.rawValue)], Double(counters.firing[kind.rawValue] ?? 0))
        }
        counter("netvigil_fleet_evaluations_total", "Evaluations this hub committed", [], counters.evaluations)
        counter("netvigil_fleet_evaluation_errors_total", "Evaluations that failed", [], counters.evaluationErrors)
        gauge("netvigil_fleet_evaluation_seconds", "How long the last evaluation took", [], counters.lastEvaluationSeconds)
        gauge("netvigil_fleet_alert_notices_pending", "Outbox notices not delivered yet (all hubs)", [],
              Double(counters.pendingNotices))
        for (sink, kinds) in counters.sent.sorted(by: { $0.key < $1.key }) {
            for (kind, count) in kinds.sorted(by: { $0.key < $1.key }) {
                counter("netvigil_fleet_alerts_sent_total", "Fleet alert notices this hub delivered",
                        [("sink", sink), ("kind", kind)], count)
            }
        }
        for (sink, count) in counters.deliveryErrors.sorted(by: { $0.key < $1.key }) {
            counter("netvigil_fleet_alert_delivery_errors_total", "Failed delivery attempts of fleet alert notices",
                    [("sink", sink)], count)
        }
        return registry.emitToBuffer()
    }
}
