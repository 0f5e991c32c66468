import CoreMetrics
import Prometheus

/// A swift-metrics factory over a `PrometheusCollectorRegistry` that registers counters and gauges with `# HELP` texts.
///
/// swift-prometheus's own `PrometheusMetricsFactory` registers every metric with an empty help text (the swift-metrics
/// API has no place for one), and the registry refuses a second registration of a name with a different help text,
/// so help cannot be added afterwards. This factory looks the text up by metric name; counters and gauges keep the
/// name exactly as given (no suffix is added). Histograms (swift-metrics `Timer` and aggregating `Recorder`) are left
/// to `PrometheusMetricsFactory` and have no help line. Destroying a handle unregisters its series.
public struct DescribedPrometheusMetricsFactory: MetricsFactory {
    /// The registry the feed's `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let base: PrometheusMetricsFactory
    private let help: [String: String]

    /// - Parameters:
    ///   - help: `# HELP` text by metric name; names not listed get no help line.
    public init(registry: PrometheusCollectorRegistry, help: [String: String]) {
        self.registry = registry
        self.base = PrometheusMetricsFactory(registry: registry)
        self.help = help
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        // An empty unit name adds nothing: the descriptor's name is the label itself.
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard !aggregate else {
            return base.makeRecorder(label: label, dimensions: dimensions, aggregate: true)
        }
        return registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        base.makeTimer(label: label, dimensions: dimensions)
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        base.destroyCounter(handler)
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        base.destroyFloatingPointCounter(handler)
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        base.destroyRecorder(handler)
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        base.destroyMeter(handler)
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        base.destroyTimer(handler)
    }
}
