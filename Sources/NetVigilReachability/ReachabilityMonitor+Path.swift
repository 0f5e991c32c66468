extension ReachabilityMonitor {
    /// The reachability of `destination` over `path` from the watcher's mirror, reported as an evaluation of
    /// `target`; nil when the watcher is not running. `refreshed`: after the watcher has applied every netlink
    /// notification queued so far (to confirm a failure was the path going away).
    public func evaluatePath(_ path: NetworkPath, destination: IPAddress?, target: ReachabilityTarget,
                             refreshed: Bool = false) async -> PathEvaluation? {
        if refreshed { _ = await self.refreshed(target) }
        guard let mirror = await mirrorSnapshot() else { return nil }
        return ReachabilityEvaluator.evaluatePath(path, destination: destination, target: target, mirror: mirror)
    }
}
