import Metrics
import NetVigilProbeModel
import NetVigilReachability
import NetVigilStore
import NetVigilTrust
import Synchronization

/// The daemon's Prometheus metrics, written through swift-metrics with an injected factory.
///
/// The factory is passed in rather than taken from `MetricsSystem.bootstrap` (allowed once per process), so the
/// daemon and each test can have their own registry. Names, types and help texts are in `AgentMetrics.catalogue`.
/// The per-target series (probe, per-address and reachability: nearly all series with many targets) do not go through
/// the factory: they are values in a `TargetSeriesTable`, updated in O(1) per probe and rendered at scrape time by
/// `targetSeriesExposition()`, which the feed merges into the registry's exposition.
///
/// Rules for the per-target probe series (they describe the target's last probe that ran):
/// - A skipped probe (host `NotReachable`) sets `netvigil_probe_skipped` to 1, counts `outcome="skipped"` and leaves
///   every other series at the last probe's values, so an offline machine neither fails nor alerts.
/// - `netvigil_probe_duration_seconds` has all six phases after every probe that ran, 0 for a phase that did not
///   run; `starttls`, `proxy` and `revocation` only after a probe that had that phase (`revocation`: it downloaded
///   CRLs or OCSP answers the caches did not hold, so a warm cache has no series: use `max_over_time`); `netvigil_probe_http_status_code` and `netvigil_probe_http_version` are 0 without a response (all as
///   blackbox_exporter does).
/// - `netvigil_tls_trusted`, `netvigil_tls_pin_match` and `netvigil_tls_earliest_cert_expiry_timestamp_seconds`
///   are removed when the last probe produced no such value (plain HTTP, or failed before the handshake).
/// - `netvigil_tls_pin_match`: 1 `matched`; 0 `mismatch` and `mismatch_reported` (report-only); -1 `not_pinned`
///   and `expired` (pins past `pins_expire` are ignored); absent for `not_evaluated` (the chain failed first).
public final class AgentMetrics: Sendable {
    /// Phase label values of `netvigil_probe_duration_seconds`, in probe order.
    public static let phases = ["resolve", "connect", "tls", "processing", "transfer", "total"]

    /// A metric name and its label pairs, flattened (`[name1, value1, name2, value2, ...]`).
    private struct SeriesKey: Hashable {
        let name: String
        let labels: [String]

        init(_ name: String, _ labels: [(String, String)]) {
            self.name = name
            self.labels = labels.flatMap { [$0.0, $0.1] }
        }
    }

    /// The process-wide and other low-cardinality series, as swift-metrics handles.
    private struct State {
        var gauges: [SeriesKey: Gauge] = [:]
        var counters: [SeriesKey: Counter] = [:]
        /// Unlabelled floating-point counters and the total they were raised to.
        var floatingCounters: [String: (counter: FloatingPointCounter, total: Double)] = [:]
        var netlinkResyncs = 0
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    /// The per-target series (probe, per-address, reachability), rendered through `targetSeriesExposition()`.
    let targets = Mutex(TargetSeriesTable())
    /// The scheduler whose punctuality `refreshScheduler()` exports (nil: none, e.g. in tests).
    let followedScheduler = Mutex<SchedulerStatistics?>(nil)

    /// - Parameters:
    ///   - factory: where the metrics go, e.g. a Prometheus factory over the registry the feed serves.
    ///   - version: the `version` label of `netvigil_build_info`.
    public init(factory: any MetricsFactory, version: String = NetVigilVersion.current) {
        self.factory = factory
        setGauge(Name.buildInfo, [("version", version)], 1)
        netlinkResyncs(total: 0)
        raiseCounter(Name.schedulerSkippedTicksTotal, to: 0)
        for name in [Name.storeDroppedRowsTotal, Name.resourceExhaustedTotal, Name.revocationFetchesRefusedTotal,
                     Name.eventSubscribersRefusedTotal] {
            increment(name, by: 0)
        }
        // The daemon starts with a configuration it loaded successfully (a refused one stops it).
        configReloaded(successful: true)
        configReloadRunning(nil)
        raiseCounter(Name.processCPUSeconds, to: 0)
        refreshProcess()
    }

    /// Records one finished probe of `target` (also a skipped one). `labels` follow the series' own labels
    /// (`ProbeTarget.seriesLabels`: `endpoint` and the configured labels); when they differ from the previous
    /// probe's (a reload changed them), the target's series with the old labels are removed first. `findings` is the
    /// number of Baseline Requirements findings of the served chain (nil without a TLS verdict).
    public func probeFinished(target: String, labels: [(String, String)] = [], record: ProbeRecord, findings: Int? = nil) {
        let lastRun = record.outcome == .skipped ? nil : Self.lastRun(of: record, findings: findings)
        targets.withLock { $0.recordProbe(target: target, labels: labels, outcome: record.outcome, lastRun: lastRun) }
    }

    /// Records a reachability evaluation: status and one 0/1 series per flag name.
    public func reachabilityChanged(_ evaluation: ReachabilityEvaluation) {
        targets.withLock { table in
            table.recordReachability(target: evaluation.target.description, status: Double(evaluation.status.rawValue),
                                     flags: evaluation.flags)
        }
    }

    /// Sets `netvigil_netlink_resyncs_total` from the monitor's running total (`ReachabilityMonitor.resyncCount`).
    /// A smaller total than before (a new monitor) restarts the counter, which Prometheus treats as a reset.
    public func netlinkResyncs(total: Int) {
        state.withLock { state in
            let counter = self.counter(Name.netlinkResyncsTotal, [], in: &state)
            if total >= state.netlinkResyncs {
                counter.increment(by: total - state.netlinkResyncs)
            } else {
                counter.reset()
                counter.increment(by: total)
            }
            state.netlinkResyncs = total
        }
    }

    /// Counts one alert delivered to `sink` (2xx from a webhook, exit 0 from exec).
    public func alertSent(sink: String, kind: String) {
        state.withLock { state in
            self.counter(Name.alertsSentTotal, [("sink", sink), ("kind", kind)], in: &state).increment()
        }
    }

    /// Sets the number of alerts in the outbox that are not delivered yet.
    public func alertsPending(_ count: Int) {
        state.withLock { state in
            self.setGauge(Name.alertsPending, [], Double(count), in: &state)
        }
    }

    /// Drops every probe series of `target` (configuration reload removed it).
    public func targetRemoved(_ target: String) {
        targets.withLock { $0.removeProbeTarget(target) }
    }

    /// Drops the reachability series of a reachability target no longer watched.
    public func reachabilityTargetRemoved(_ target: ReachabilityTarget) {
        targets.withLock { $0.removeReachabilityTarget(target.description) }
    }

    /// The per-target series of a scrape in the Prometheus text format, to be rendered a piece at a time (the feed
    /// merges them with the registry's families). The table is copied under the lock and sorted outside it, so
    /// probes finishing meanwhile do not wait.
    public func targetSeriesExposition() -> TargetSeriesExposition {
        let table = targets.withLock { $0 }
        return TargetSeriesExposition(table)
    }

    // MARK: - Series bookkeeping (the `in state:` variants run under the lock)

    func setGauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
        state.withLock { state in setGauge(name, labels, value, in: &state) }
    }

    /// Adds to an unlabelled counter (0 creates it, so it is exported from the start).
    func increment(_ name: String, by amount: Int) {
        state.withLock { state in
            let counter = self.counter(name, [], in: &state)
            if amount > 0 { counter.increment(by: amount) }
        }
    }

    /// Adds to a labelled counter (0 creates the series, so it is exported from the start).
    func increment(_ name: String, _ labels: [(String, String)], by amount: Int) {
        state.withLock { state in
            let counter = self.counter(name, labels, in: &state)
            if amount > 0 { counter.increment(by: amount) }
        }
    }

    /// Raises an unlabelled floating-point counter to `total` (a running total read elsewhere; never lowered).
    func raiseCounter(_ name: String, to total: Double) {
        state.withLock { state in
            let entry = state.floatingCounters[name]
                ?? (FloatingPointCounter(label: name, dimensions: [], factory: factory), 0)
            if total > entry.total { entry.counter.increment(by: total - entry.total) }
            state.floatingCounters[name] = (entry.counter, max(total, entry.total))
        }
    }

    private func setGauge(_ name: String, _ labels: [(String, String)], _ value: Double, in state: inout State) {
        let key = SeriesKey(name, labels)
        if let gauge = state.gauges[key] {
            gauge.record(value)
            return
        }
        let gauge = Gauge(label: name, dimensions: labels, factory: factory)
        gauge.record(value)
        state.gauges[key] = gauge
    }

    private func counter(_ name: String, _ labels: [(String, String)], in state: inout State) -> Counter {
        let key = SeriesKey(name, labels)
        if let counter = state.counters[key] { return counter }
        let counter = Counter(label: name, dimensions: labels, factory: factory)
        state.counters[key] = counter
        return counter
    }

    // MARK: - Values of a probe

    /// The per-target values a probe that ran leaves (phase durations in seconds, 0 for a phase of the six that did
    /// not run; the optional phases and TLS values nil when the probe had none).
    static func lastRun(of record: ProbeRecord, findings: Int?) -> TargetSeriesTable.LastRun {
        let timings = record.timings
        let always: [Double?] = [timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer,
                                 timings.total].map { $0 ?? 0 }
        let milliseconds = always + [timings.starttls, timings.proxy, timings.revocation]
        return TargetSeriesTable.LastRun(
            success: record.outcome == .ok ? 1 : 0,
            durations: milliseconds.map { $0.map { $0 / 1_000 } },
            httpStatus: Double(record.httpStatus ?? 0),
            httpVersion: httpVersionValue(record.httpVersion),
            trusted: trustedValue(record.trustVerdict),
            pinMatch: pinMatchValue(record.pinVerdict),
            earliestExpiry: record.servedChain.map(\.notAfter).min().map { Double($0.milliseconds) / 1_000 },
            servedPin: record.servedChain.first?.spkiPin,
            findings: findings.map(Double.init))
    }

    // MARK: - Verdict values

    /// 1 `trusted`, 0 `untrusted:*`, nil without a verdict.
    static func trustedValue(_ verdict: TrustSummary?) -> Double? {
        verdict.map { $0.isTrusted ? 1 : 0 }
    }

    /// 1 matched, 0 mismatch (report-only too), -1 not pinned or expired, nil without a verdict or not evaluated.
    static func pinMatchValue(_ verdict: PinVerdict?) -> Double? {
        switch verdict {
        case .matched: 1
        case .mismatch, .mismatchReported: 0
        case .notPinned, .expired: -1
        case .notEvaluated, nil: nil
        }
    }
}
