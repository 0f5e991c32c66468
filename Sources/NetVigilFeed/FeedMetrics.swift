import NetVigilAgent
import Prometheus

/// The daemon's metrics as the feed serves them: one registry, the agent's metrics written into it.
///
/// ```swift
/// let metrics = FeedMetrics()
/// ReachabilityRecorder(..., metrics: metrics.agent)      // producers write
/// FeedState(store: store, metrics: metrics)              // GET /metrics renders metrics.exposition()
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

    /// What `GET /metrics` serves: the `process_*` metrics read from `/proc/self` and the scheduler's punctuality,
    /// then `exposition()`.
    public func scrape() -> [UInt8] {
        agent.refreshProcess()
        agent.refreshScheduler()
        return exposition()
    }

    /// The Prometheus text exposition (format 0.0.4) of everything in the registry and of the agent's per-target
    /// series (rendered from its table, not registered), in a stable order.
    ///
    /// The registry emits families and series in hash order, different from run to run; families are sorted by
    /// name, and the series of gauges and counters by their text, so scrapes read and diff well.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        agent.renderTargetSeries(into: &buffer)
        return Self.sorted(buffer)
    }

    /// One metric family: its `# HELP`/`# TYPE` lines and its sample lines.
    private struct Family {
        var name: String
        var header: [ArraySlice<UInt8>] = []
        var samples: [ArraySlice<UInt8>] = []
        var sortsSamples = false
    }

    /// Sorts the families by name and the samples of gauge and counter families (histogram lines keep their order).
    /// Lines are safe to split on `\n`: the format escapes line feeds in label values and help texts.
    static func sorted(_ text: [UInt8]) -> [UInt8] {
        var families: [Family] = []
        for line in text.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: "# ".utf8) {
                let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3)
                let name = fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""
                if families.last?.name != name || families.last?.samples.isEmpty == false {
                    families.append(Family(name: name))
                }
                families[families.count - 1].header.append(line)
                if fields.count > 3, fields[1].elementsEqual("TYPE".utf8) {
                    families[families.count - 1].sortsSamples =
                        fields[3].elementsEqual("gauge".utf8) || fields[3].elementsEqual("counter".utf8)
                }
            } else {
                if families.isEmpty { families.append(Family(name: "")) }
                families[families.count - 1].samples.append(line)
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        for family in families.sorted(by: { $0.name < $1.name }) {
            let samples = family.sortsSamples ? family.samples.sorted { $0.lexicographicallyPrecedes($1) } : family.samples
            for line in family.header + samples {
                output.append(contentsOf: line)
                output.append(UInt8(ascii: "\n"))
            }
        }
        return output
    }
}
