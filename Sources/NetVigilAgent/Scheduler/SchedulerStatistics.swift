import Synchronization

/// How punctual the scheduler is: lateness of probe starts against their schedule, skipped ticks.
public final class SchedulerStatistics: Sendable {
    private struct State {
        var lateness: [Double] = []
        var next = 0
        var started = 0
        var skippedTicks = 0
    }

    /// How many recent lateness samples are kept.
    public let capacity: Int
    private let state = Mutex(State())

    /// - Parameter capacity: the default is what `/metrics` reads (`AgentMetrics.latenessWindow`): a larger ring
    ///   would grow an idle daemon's heap for hours with samples nothing reads. Its storage is reserved here: grown
    ///   by appending, the ring would be reallocated again and again as an idle daemon fills it.
    public init(capacity: Int = AgentMetrics.latenessWindow) {
        self.capacity = capacity
        state.withLock { $0.lateness.reserveCapacity(capacity) }
    }

    func probeStarted(latenessSeconds: Double) {
        state.withLock { state in
            state.started += 1
            if state.lateness.count < capacity {
                state.lateness.append(latenessSeconds)
            } else {
                state.lateness[state.next] = latenessSeconds
                state.next = (state.next + 1) % capacity
            }
        }
    }

    func ticksSkipped(_ count: Int) {
        state.withLock { $0.skippedTicks += count }
    }

    /// Probes started so far.
    public var probesStarted: Int { state.withLock { $0.started } }
    /// The lateness samples kept (at most `capacity`).
    var storedSampleCount: Int { state.withLock { $0.lateness.count } }
    /// How many samples the ring's storage holds without growing.
    var reservedSampleCount: Int { state.withLock { $0.lateness.capacity } }
    /// Ticks dropped because the previous probe of the target was still running.
    public var skippedTicks: Int { state.withLock { $0.skippedTicks } }

    /// The `quantile` (0...1) of recent start lateness in seconds, nil before the first probe.
    public func lateness(quantile: Double) -> Double? {
        lateness(quantiles: [quantile])?.first
    }

    /// The `quantiles` (0...1) of the start lateness of the newest `window` samples (at most `capacity`) in seconds,
    /// from one sort; nil before the first probe.
    public func lateness(quantiles: [Double], window: Int = .max) -> [Double]? {
        let samples = state.withLock { state -> [Double] in
            let all = state.lateness
            let count = min(max(0, window), all.count)
            // Until the ring is full samples are appended in order; then the newest is just before `next`.
            guard all.count == capacity else { return Array(all.suffix(count)) }
            return (0..<count).map { all[(state.next - count + $0 + all.count) % all.count] }
        }.sorted()
        guard !samples.isEmpty else { return nil }
        return quantiles.map { quantile in
            samples[min(samples.count - 1, max(0, Int((Double(samples.count) * quantile).rounded(.up)) - 1))]
        }
    }

    /// Forgets the samples (benchmarks measure after a warm-up).
    public func reset() {
        state.withLock { $0 = State() }
    }
}
