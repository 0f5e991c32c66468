import Synchronization

/// What the shipper last knew, for `/healthz`: lag over ten heartbeats is a warning, never a 503 (probing is fine).
public final class FleetShippingStatus: Sendable {
    private let lag = Mutex<Double>(0)
    /// The lag above which `/healthz` warns, in seconds.
    public let warningThreshold: Double

    public init(heartbeat: Duration) {
        warningThreshold = 10 * (Double(heartbeat.components.seconds) + Double(heartbeat.components.attoseconds) / 1e18)
    }

    /// Sets the lag: the age in seconds of the oldest row PostgreSQL does not hold yet.
    public func update(lagSeconds: Double) { lag.withLock { $0 = lagSeconds } }

    public var lagSeconds: Double { lag.withLock { $0 } }

    /// The health warnings now: one line when the lag is over the threshold.
    public func warnings() -> [String] {
        let lag = lagSeconds
        guard lag > warningThreshold else { return [] }
        return ["fleet shipping lag \(Int(lag)) s (over 10 × heartbeat, \(Int(warningThreshold)) s)"]
    }
}
