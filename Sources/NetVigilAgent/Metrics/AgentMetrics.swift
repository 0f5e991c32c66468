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

    private static let probeMetricNames: Set<String> = Set([
        Name.probeSuccess, Name.probeSkipped, Name.probeDuration, Name.probeHTTPStatusCode, Name.probeHTTPVersion, Name.tlsTrusted,
        Name.tlsPinMatch, Name.tlsEarliestCertExpiry, Name.tlsServedKeyInfo, Name.tlsFindings, Name.probesTotal,
    ]).union(addressMetricNames)
    private static let reachabilityMetricNames: Set<String> = [Name.reachabilityStatus, Name.reachabilityFlag]

    /// A metric name and its label pairs, flattened (`[name1, value1, name2, value2, ...]`).
    private struct SeriesKey: Hashable {
        let name: String
        let labels: [String]

        init(_ name: String, _ labels: [(String, String)]) {
            self.name = name
            self.labels = labels.flatMap { [$0.0, $0.1] }
        }

        /// The value of the first label when it is `target`.
        var target: String? { labels.count >= 2 && labels[0] == "target" ? labels[1] : nil }
    }

    private struct State {
        var gauges: [SeriesKey: Gauge] = [:]
        var counters: [SeriesKey: Counter] = [:]
        /// Unlabelled floating-point counters and the total they were raised to.
        var floatingCounters: [String: (counter: FloatingPointCounter, total: Double)] = [:]
        var netlinkResyncs = 0
        /// The extra labels each target's probe series carry now (`endpoint`, configured labels).
        var targetLabels: [String: [String]] = [:]
        /// Targets whose last tick left per-address series (`addresses: all`).
        var addressTargets: Set<String> = []
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
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
        for name in [Name.storeDroppedRowsTotal, Name.resourceExhaustedTotal, Name.eventSubscribersRefusedTotal] {
            increment(name, by: 0)
        }
        // The daemon starts with a configuration it loaded successfully (a refused one stops it).
        configReloaded(successful: true)
        raiseCounter(Name.processCPUSeconds, to: 0)
        refreshProcess()
    }

    /// Records one finished probe of `target` (also a skipped one). `labels` follow the series' own labels
    /// (`ProbeTarget.seriesLabels`: `endpoint` and the configured labels); when they differ from the previous
    /// probe's (a reload changed them), the target's series with the old labels are removed first. `findings` is the
    /// number of Baseline Requirements findings of the served chain (nil without a TLS verdict).
    public func probeFinished(target: String, labels: [(String, String)] = [], record: ProbeRecord, findings: Int? = nil) {
        let targetLabel = ("target", target)
        state.withLock { state in
            let flat = labels.flatMap { [$0.0, $0.1] }
            if let previous = state.targetLabels[target], previous != flat {
                self.removeSeries(names: Self.probeMetricNames, target: target, in: &state)
            }
            state.targetLabels[target] = flat
            func setGauge(_ name: String, _ own: [(String, String)], _ value: Double) {
                self.setGauge(name, own + labels, value, in: &state)
            }
            func setOrRemoveGauge(_ name: String, _ own: [(String, String)], _ value: Double?) {
                self.setOrRemoveGauge(name, own + labels, value, in: &state)
            }
            for outcome in ProbeOutcome.allCases {
                // All outcomes exist from the first probe on, so rate() sees the first failure.
                let counter = self.counter(Name.probesTotal, [targetLabel, ("outcome", outcome.rawValue)] + labels, in: &state)
                if outcome == record.outcome { counter.increment() }
            }
            if record.outcome == .skipped {
                setGauge(Name.probeSkipped, [targetLabel], 1)
                return
            }
            setGauge(Name.probeSkipped, [targetLabel], 0)
            setGauge(Name.probeSuccess, [targetLabel], record.outcome == .ok ? 1 : 0)
            let timings = record.timings
            let milliseconds = [timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer,
                                timings.total]
            for (phase, value) in zip(Self.phases, milliseconds) {
                setGauge(Name.probeDuration, [targetLabel, ("phase", phase)], (value ?? 0) / 1_000)
            }
            // Only STARTTLS-style targets (smtp://, ldap://, postgres://, ...) have this phase.
            setOrRemoveGauge(Name.probeDuration, [targetLabel, ("phase", "starttls")], timings.starttls.map { $0 / 1_000 })
            // Only proxied targets (connect to the proxy and, for a tunnel, its CONNECT answer).
            setOrRemoveGauge(Name.probeDuration, [targetLabel, ("phase", "proxy")], timings.proxy.map { $0 / 1_000 })
            // Only probes that downloaded revocation data (CRLs, OCSP answers) the caches did not hold.
            setOrRemoveGauge(Name.probeDuration, [targetLabel, ("phase", "revocation")], timings.revocation.map { $0 / 1_000 })
            setGauge(Name.probeHTTPStatusCode, [targetLabel], Double(record.httpStatus ?? 0))
            setGauge(Name.probeHTTPVersion, [targetLabel], Self.httpVersionValue(record.httpVersion))
            setOrRemoveGauge(Name.tlsTrusted, [targetLabel], Self.trustedValue(record.trustVerdict))
            setOrRemoveGauge(Name.tlsPinMatch, [targetLabel], Self.pinMatchValue(record.pinVerdict))
            let earliest = record.servedChain.map(\.notAfter).min().map { Double($0.milliseconds) / 1_000 }
            setOrRemoveGauge(Name.tlsEarliestCertExpiry, [targetLabel], earliest)
            // One series per target: the key served now (a new key replaces the old series; no chain, no series).
            let pin = record.servedChain.first?.spkiPin
            let stale = state.gauges.keys.filter { key in
                key.name == Name.tlsServedKeyInfo && key.target == target && (pin == nil || key.labels[3] != pin)
            }
            for key in stale { state.gauges.removeValue(forKey: key)?.destroy() }
            if let pin { setGauge(Name.tlsServedKeyInfo, [targetLabel, ("pin", pin)], 1) }
            setOrRemoveGauge(Name.tlsFindings, [targetLabel], findings.map(Double.init))
        }
    }

    /// Records a reachability evaluation: status and one 0/1 series per flag name.
    public func reachabilityChanged(_ evaluation: ReachabilityEvaluation) {
        let targetLabel = ("target", evaluation.target.description)
        state.withLock { state in
            self.setGauge(Name.reachabilityStatus, [targetLabel], Double(evaluation.status.rawValue), in: &state)
            for (flag, name) in ReachabilityFlags.named {
                self.setGauge(Name.reachabilityFlag, [targetLabel, ("flag", name)],
                              evaluation.flags.contains(flag) ? 1 : 0, in: &state)
            }
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
        removeSeries(names: Self.probeMetricNames, target: target)
    }

    /// Drops the reachability series of a reachability target no longer watched.
    public func reachabilityTargetRemoved(_ target: ReachabilityTarget) {
        removeSeries(names: Self.reachabilityMetricNames, target: target.description)
    }

    // MARK: - Series bookkeeping (the `in state:` variants run under the lock)

    private func removeSeries(names: Set<String>, target: String) {
        state.withLock { state in removeSeries(names: names, target: target, in: &state) }
    }

    private func removeSeries(names: Set<String>, target: String, in state: inout State) {
        let matches = { (key: SeriesKey) in names.contains(key.name) && key.target == target }
        for key in state.gauges.keys.filter(matches) {
            state.gauges.removeValue(forKey: key)?.destroy()
        }
        for key in state.counters.keys.filter(matches) {
            state.counters.removeValue(forKey: key)?.destroy()
        }
        if names == Self.probeMetricNames { state.targetLabels[target] = nil }
    }

    func setGauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
        state.withLock { state in setGauge(name, labels, value, in: &state) }
    }

    /// Sets `name` with `labels` to `value`, or removes that series when `value` is nil.
    func setOrRemoveGauge(_ name: String, _ labels: [(String, String)], _ value: Double?) {
        state.withLock { state in setOrRemoveGauge(name, labels, value, in: &state) }
    }

    /// Records whether `target` has per-address series from now on; returns whether it had them before.
    func swapAddressSeries(of target: String, to present: Bool) -> Bool {
        state.withLock { state in
            let had = state.addressTargets.contains(target)
            if present { state.addressTargets.insert(target) } else { state.addressTargets.remove(target) }
            return had
        }
    }

    /// Removes every gauge whose name and flattened labels (`[name1, value1, ...]`) match.
    func removeGauges(where matches: (String, [String]) -> Bool) {
        state.withLock { state in
            for key in state.gauges.keys where matches(key.name, key.labels) { state.gauges.removeValue(forKey: key)?.destroy() }
        }
    }

    /// Adds to an unlabelled counter (0 creates it, so it is exported from the start).
    func increment(_ name: String, by amount: Int) {
        state.withLock { state in
            let counter = self.counter(name, [], in: &state)
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

    private func setOrRemoveGauge(_ name: String, _ labels: [(String, String)], _ value: Double?, in state: inout State) {
        if let value {
            setGauge(name, labels, value, in: &state)
        } else {
            state.gauges.removeValue(forKey: SeriesKey(name, labels))?.destroy()
        }
    }

    private func counter(_ name: String, _ labels: [(String, String)], in state: inout State) -> Counter {
        let key = SeriesKey(name, labels)
        if let counter = state.counters[key] { return counter }
        let counter = Counter(label: name, dimensions: labels, factory: factory)
        state.counters[key] = counter
        return counter
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
