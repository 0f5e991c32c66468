/// One metric the daemon exports: its Prometheus name, type, label names and `# HELP` text.
///
/// `AgentMetrics.catalogue` lists them all; the feed's Prometheus factory takes the help texts from it,
/// and the Metrics table in docs/feed.md documents the same list.
public struct MetricDescription: Sendable, Hashable {
    /// Prometheus metric type.
    public enum Kind: String, Sendable, Hashable {
        case gauge
        case counter
    }

    /// Full metric name as exported, e.g. `netvigil_probe_success`.
    public let name: String
    public let kind: Kind
    /// Label names in the order they are attached.
    public let labels: [String]
    /// The `# HELP` text (one line).
    public let help: String

    public init(name: String, kind: Kind, labels: [String], help: String) {
        self.name = name
        self.kind = kind
        self.labels = labels
        self.help = help
    }
}
