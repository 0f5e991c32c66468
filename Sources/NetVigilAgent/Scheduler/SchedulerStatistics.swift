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

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
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
    /// Ticks dropped because the previous probe of the target was still running.
    public var skippedTicks: Int { state.withLock { $0.skippedTicks } }

    /// The `quantile` (0...1) of recent start lateness in seconds, nil before the first probe.
    public func lateness(quantile: Double) -> Double? {
        let samples = state.withLock { $0.lateness }.sorted()
        guard !samples.isEmpty else { return nil }
        let index = min(samples.count - 1, max(0, Int((Double(samples.count) * quantile).rounded(.up)) - 1))
        return samples[index]
    }

    /// Forgets the samples (benchmarks measure after a warm-up).
    public func reset() {
        state.withLock { $0 = State() }
    }
}
