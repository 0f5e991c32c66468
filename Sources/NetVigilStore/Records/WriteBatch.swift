/// Rows written together in one transaction: an alert and the probe result that caused it commit or fail together.
public struct WriteBatch: Sendable, Equatable {
    public var probes: [ProbeRecord]
    public var reachabilityEvents: [ReachabilityEventRecord]
    public var alerts: [AlertRecord]

    public init(probes: [ProbeRecord] = [], reachabilityEvents: [ReachabilityEventRecord] = [], alerts: [AlertRecord] = []) {
        self.probes = probes
        self.reachabilityEvents = reachabilityEvents
        self.alerts = alerts
    }

    public var isEmpty: Bool { probes.isEmpty && reachabilityEvents.isEmpty && alerts.isEmpty }
    public var count: Int { probes.count + reachabilityEvents.count + alerts.count }

    /// Appends another batch's rows.
    public mutating func append(_ other: WriteBatch) {
        probes += other.probes
        reachabilityEvents += other.reachabilityEvents
        alerts += other.alerts
    }
}
