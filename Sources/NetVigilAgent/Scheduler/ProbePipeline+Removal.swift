import NetVigilStore

/// Targets a reload removed or changed.
extension ProbePipeline {
    /// Resolves the alerts of `targets` (as they were before the reload), which a reload removed or changed: their
    /// resolved rows go to each target's sinks through the store writer (the dispatcher is woken once they are
    /// committed, as after a probe) and their events to the event hub. Returns what was decided.
    @discardableResult
    public func resolveAlerts(ofRemoved targets: [ProbeTarget], resolution: String = AlertEngine.removedResolution,
                              now: Timestamp = .now()) -> AlertDecision {
        guard let alerts else { return AlertDecision() }
        var decision = AlertDecision()
        for target in targets {
            let removed = alerts.remove(target.alertContext(), now: now, resolution: resolution)
            decision.rows += removed.rows
            decision.events += removed.events
        }
        if !decision.rows.isEmpty, !writer.submit(WriteBatch(alerts: decision.rows), onCommit: alertsCommitted) {
            logger.error("resolved alerts of removed or changed targets not stored: the store writer has shut down",
                         metadata: ["targets": "\(targets.map(\.name).joined(separator: ","))"])
        }
        for event in decision.events { events.publish(.alert(event)) }
        return decision
    }
}
