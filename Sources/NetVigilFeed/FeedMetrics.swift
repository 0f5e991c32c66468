import NetVigilAgent
import Prometheus

/// The daemon's metrics as the feed serves them: one registry, the agent's metrics written into it.
///
/// ```swift
/// let metrics = FeedMetrics()
/// ReachabilityRecorder(..., metrics: metrics.agent)      // producers write
/// FeedState(store: store, metrics: metrics)              // GET /metrics streams metrics.scrape()
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

    /// What `GET /metrics` serves: the `process_*` metrics read from `/proc/self` and the scheduler's punctuality
    /// refreshed, then `exposition()`'s chunks.
    public func scrape() -> MetricsExposition {
        agent.refreshProcess()
        agent.refreshScheduler()
        return exposition()
    }

    /// The Prometheus text exposition (format 0.0.4) of everything in the registry and of the agent's per-target
    /// series (rendered from its table, not registered), in a stable order (see `MetricsExposition`).
    public func exposition() -> MetricsExposition {
        var registryText: [UInt8] = []
        registry.emit(into: &registryText)
        return MetricsExposition(registryText: registryText, targetSeries: agent.targetSeriesExposition())
    }
}
