import Foundation
import Logging
import NetVigilProber
import NetVigilReachability
import NetVigilStore

/// What happens to one probe of one target: reachability gate → probe → alert rules → one transaction with the
/// result and its alerts → in-memory state, events and metrics.
public struct ProbePipeline: Sendable {
    public let prober: Prober
    public let writer: StoreWriter
    public let states: TargetStates
    public let events: EventHub
    public let alerts: AlertEngine?
    public let metrics: AgentMetrics?
    public let reachability: ReachabilityMonitor?
    /// Called after alert rows were committed (wakes the dispatcher).
    public let alertsCommitted: @Sendable () -> Void
    let logger: Logger

    public init(prober: Prober, writer: StoreWriter, states: TargetStates, events: EventHub, alerts: AlertEngine? = nil,
                metrics: AgentMetrics? = nil, reachability: ReachabilityMonitor? = nil,
                alertsCommitted: @escaping @Sendable () -> Void = {}, logger: Logger) {
        self.prober = prober
        self.writer = writer
        self.states = states
        self.events = events
        self.alerts = alerts
        self.metrics = metrics
        self.reachability = reachability
        self.alertsCommitted = alertsCommitted
        self.logger = logger
    }

    /// Probes `target` once (or records it as skipped when its host is not reachable) and returns the record.
    @discardableResult
    public func run(_ target: ProbeTarget) async -> ProbeRecord {
        let began = ContinuousClock.now
        let target = reportingRevocationRefusals(target)
        let evaluation = await hostReachability(target)
        var record: ProbeRecord
        var findings: Int? = nil
        // `addresses: all`: one row per address; `record` is then the whole target's result.
        var addressRows: AddressResults? = nil
        if !target.sources.isEmpty {
            // `source:`: each path's own reachability decides, not the default route's.
            let rows = await probeEachPath(target, hostEvaluation: evaluation)
            record = rows.combined
            if rows.records.count > 1 { addressRows = rows }
        } else if let evaluation, evaluation.status == .notReachable {
            record = Self.skipped(target, evaluation: evaluation)
        } else if target.probesEachAddress {
            let rows = await probeEachAddress(target, evaluation: evaluation)
            record = rows.combined
            if rows.records.count > 1 || rows.records.first?.resolvedAddress != nil { addressRows = rows }
        } else {
            let result = await prober.probe(target.request, configuration: target.configuration)
            findings = result.trustVerdict == nil ? nil : result.findings.count
            if let error = result.error, error.kind == .resourceExhausted {
                // The agent's own problem (descriptors, memory): say so loudly, never blame the target.
                logger.error("probe not run: the agent is out of resources", metadata: ["target": "\(target.name)", "error": "\(error.message)"])
                metrics?.resourceExhausted()
                record = Self.agentFailure(target, error: error, reachability: evaluation)
            } else if let error = result.error, error.kind.mayBeNetworkLoss, let after = await hostReachability(target, refreshed: true),
               after.status == .notReachable {
                // The link went down while the probe ran: the machine is offline, not the target.
                record = Self.skipped(target, evaluation: after, failure: error)
            } else {
                record = result.record(target: target.name, reachabilityStatus: evaluation?.status.name)
            }
        }
        if Task.isCancelled {
            return stopped(target, record: record, after: ContinuousClock.now - began, addresses: addressRows)
        }
        var decision = AlertDecision()
        if let alerts {
            let context = target.alertContext(addresses: addressRows?.findings ?? [])
            decision = alerts.evaluate(record, context: context, now: .now())
        }
        // Never waits for the commit: while the store cannot be written, probing and alerting go on and the rows
        // wait in the writer's bounded queue (the dispatcher also delivers queued alert rows from there).
        let rows = addressRows?.records ?? [record]
        let batch = WriteBatch(probes: rows, alerts: decision.rows)
        let onCommit: (@Sendable () -> Void)? = decision.rows.isEmpty ? nil : alertsCommitted
        if !writer.submit(batch, onCommit: onCommit) {
            logger.error("probe result not stored: the store writer has shut down", metadata: ["target": "\(target.name)"])
        }
        states.record(record, addresses: addressRows?.records)
        metrics?.probeFinished(target: target.name, labels: target.seriesLabels, record: record, findings: findings)
        metrics?.addressProbesFinished(target: target.name, records: addressRows?.records ?? [])
        for row in rows { events.publish(.probe(row)) }
        for event in decision.events { events.publish(.alert(event)) }
        if record.outcome == .failed {
            logger.warning("probe failed", metadata: [
                "target": "\(target.name)", "error": "\(record.errorKind?.rawValue ?? "?")", "message": "\(record.errorMessage ?? "")",
            ])
        } else {
            logger.debug("probe finished", metadata: ["target": "\(target.name)", "outcome": "\(record.outcome.rawValue)"])
        }
        return record
    }

    /// A probe the daemon cancelled because it is stopping: whatever the probe saw after the cancellation is not the
    /// target's doing, so it is stored as skipped (never a failure) and raises no alert, changes no state and no metric.
    private func stopped(_ target: ProbeTarget, record: ProbeRecord, after elapsed: Duration,
                         addresses: AddressResults?) -> ProbeRecord {
        let seconds = (elapsed.inSeconds * 10).rounded() / 10
        // What the probe measured before the cancellation (timings, a handshake's verdict) stays true and is kept.
        func cancelled(_ row: ProbeRecord) -> ProbeRecord {
            var row = row
            row.outcome = .skipped
            row.errorKind = .cancelled
            row.errorMessage = "cancelled: netvigil stopped while the probe ran (after \(seconds) s)"
            return row
        }
        let rows = (addresses?.records ?? [record]).map(cancelled)
        if !writer.submit(WriteBatch(probes: rows, alerts: []), onCommit: nil) {
            logger.error("probe result not stored: the store writer has shut down", metadata: ["target": "\(target.name)"])
        }
        logger.info("probe cancelled: netvigil is stopping", metadata: ["target": "\(target.name)", "after": "\(seconds) s"])
        return cancelled(record)
    }

    /// The host's reachability, nil when there is no monitor or no evaluation yet; `refreshed`: once the watcher
    /// has applied every netlink notification queued so far.
    func hostReachability(_ target: ProbeTarget, refreshed: Bool = false) async -> ReachabilityEvaluation? {
        guard let reachability, let host = target.reachabilityTarget else { return nil }
        return refreshed ? await reachability.refreshed(host) : await reachability.current(host)
    }

    /// A probe the agent could not run for lack of its own resources: stored as skipped, with the error.
    static func agentFailure(_ target: ProbeTarget, error: ProbeError, reachability: ReachabilityEvaluation?,
                             now: Timestamp = .now()) -> ProbeRecord {
        ProbeRecord(time: now, target: target.name, url: target.url, outcome: .skipped,
                    errorKind: error.kind, errorMessage: "not probed: \(error.message)",
                    reachabilityStatus: reachability?.status.name)
    }

    /// A skipped result carrying the reachability evaluation that caused it; `failure` is the error of a probe
    /// that ran while the host stopped being reachable.
    static func skipped(_ target: ProbeTarget, evaluation: ReachabilityEvaluation, failure: ProbeError? = nil,
                        now: Timestamp = .now()) -> ProbeRecord {
        let flags = evaluation.flags.names
        let state = "\(target.host) is NotReachable (flags: \(flags.isEmpty ? "none" : flags.joined(separator: ",")))"
        return ProbeRecord(
            time: now, target: target.name, url: target.url, outcome: .skipped,
            errorMessage: failure.map { "probe failed as the network went away (\($0)); \(state)" } ?? "not probed: \(state)",
            reachabilityStatus: evaluation.status.name,
            detailsJSON: "{\"reachability\":\(evaluation.jsonLine())}")
    }
}
