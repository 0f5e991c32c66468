import NetVigilAgent
import Prometheus

/// The daemon's metrics as the feed serves them: one registry, the agent's metrics written into it.
///
/// ```swift
/// let metrics = FeedMetrics()
/// ReachabilityRecorder(..., metrics: metrics.agent)      // producers write
/// FeedState(store: store, metrics: metrics)              // GET /metrics renders metrics.registry
/// ```
public struct FeedMetrics: Sendable {
    /// What `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    /// The agent's metrics, written into `registry` with the help texts of `AgentMetrics.catalogue`.
    public let agent: AgentMetrics

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                version: String = NetVigilVersion.current) {
        self.registry = registry
        self.agent = AgentMetrics(
            factory: DescribedPrometheusMetricsFactory(registry: registry, help: AgentMetrics.helpTexts),
            version: version)
    }

    /// The Prometheus text exposition (format 0.0.4) of everything in the registry.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
