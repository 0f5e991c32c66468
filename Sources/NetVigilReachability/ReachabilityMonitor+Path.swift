extension ReachabilityMonitor {
    /// The reachability of `destination` over `path` from the watcher's mirror, reported as an evaluation of
    /// `target`; nil when the watcher is not running. `refreshed`: after the watcher has applied every netlink
    /// notification queued so far (to confirm a failure was the path going away). A path the captive-portal check
    /// found behind a portal gets `interventionRequired` (NotReachable), its problem naming the check's answer.
    public func evaluatePath(_ path: NetworkPath, destination: IPAddress?, target: ReachabilityTarget,
                             refreshed: Bool = false) async -> PathEvaluation? {
        if refreshed { _ = await self.refreshed(target) }
        guard let mirror = await mirrorSnapshot() else { return nil }
        return ReachabilityEvaluator.evaluatePath(path, destination: destination, target: target, mirror: mirror,
                                                  captivePortal: pathInterventions[path])
    }

    /// Sets (with the captive-portal check's message, e.g. `expected HTTP 204, got 302`) or clears (nil) the
    /// captive-portal input of one path, as `setInterventionRequired(_:for:)` does for a target: the check ran
    /// bound to that path, so its verdict holds for that path alone.
    public func setInterventionRequired(_ message: String?, for path: NetworkPath) {
        pathInterventions[path] = message
    }
}
