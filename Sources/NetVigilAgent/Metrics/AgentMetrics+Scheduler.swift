extension AgentMetrics {
    /// The quantiles `netvigil_scheduler_start_lateness_seconds` exports, as its `percentile` label (50, 99, 100: the
    /// largest). Not `quantile`: Prometheus keeps that label for summaries.
    public static let latenessQuantiles: [Double] = [0.5, 0.99, 1]
    /// The starts `netvigil_scheduler_start_lateness_seconds` describes: the newest 10,000 (a minute of 10,000 targets
    /// at 60 s, the largest configuration).
    public static let latenessWindow = 10_000

    /// Exports the punctuality of `statistics` (the daemon's scheduler) from now on; see `refreshScheduler()`.
    public func follow(scheduler statistics: SchedulerStatistics) {
        followedScheduler.withLock { $0 = statistics }
    }

    /// Updates the scheduler metrics from the followed scheduler (call before each scrape is rendered: sorting the
    /// lateness samples is done then, not per probe).
    public func refreshScheduler() {
        guard let statistics = followedScheduler.withLock({ $0 }) else { return }
        let quantiles = Self.latenessQuantiles
        let lateness = statistics.lateness(quantiles: quantiles, window: Self.latenessWindow)
        schedulerPunctuality(skippedTicks: statistics.skippedTicks, lateness: lateness.map { Array(zip(quantiles, $0)) } ?? [])
    }

    /// Sets `netvigil_scheduler_skipped_ticks_total` and, per quantile, `netvigil_scheduler_start_lateness_seconds`.
    public func schedulerPunctuality(skippedTicks: Int, lateness: [(quantile: Double, seconds: Double)]) {
        raiseCounter(Name.schedulerSkippedTicksTotal, to: Double(skippedTicks))
        for (quantile, seconds) in lateness {
            let percent = (quantile * 10_000).rounded() / 100
            let label = percent == percent.rounded() ? String(Int(percent)) : String(percent)
            setGauge(Name.schedulerStartLateness, [("percentile", label)], seconds)
        }
    }
}
