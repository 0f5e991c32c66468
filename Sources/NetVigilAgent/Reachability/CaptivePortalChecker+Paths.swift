import Logging
import NetVigilProber
import NetVigilReachability

extension CaptivePortalChecker {
    /// The latest verdict of each `source:` path (empty before the first check, or without paths).
    public var pathVerdicts: [ProbeSource: Verdict] { state.withLock { $0.pathVerdicts } }

    /// Checks every path at once, each bound to its interface or address, and applies each definite verdict to
    /// that path alone: `portal` marks it NotReachable (with the check's answer as the reason), `free` clears it.
    /// A failed check (the path down, no answer) changes nothing: the path's own reachability says why.
    func checkPaths(_ paths: [ProbeSource], settings: CaptivePortalSettings) async {
        await withTaskGroup(of: (ProbeSource, Verdict).self) { group in
            for path in paths { group.addTask { (path, await self.verdict(settings, over: path)) } }
            for await (path, verdict) in group { await apply(verdict, to: path, settings: settings) }
        }
    }

    private func apply(_ verdict: Verdict, to path: ProbeSource, settings: CaptivePortalSettings) async {
        let previous = state.withLock { state -> Verdict? in
            // A path dropped by a reload while its check ran keeps no verdict.
            guard state.paths.contains(path) else { return nil }
            defer { state.pathVerdicts[path] = verdict }
            return state.pathVerdicts[path] ?? Verdict(state: "unknown")
        }
        guard let previous else { return }
        if verdict.state != "unknown" {
            let answer = verdict.state == "portal" ? "expected HTTP \(settings.expectStatus), got \(verdict.httpStatus ?? 0)" : nil
            await monitor.setInterventionRequired(answer, for: NetworkPath(path))
        }
        guard previous.state != verdict.state else { return }
        let metadata: Logger.Metadata = ["path": "\(path)", "url": "\(settings.url)", "state": "\(verdict.state)",
                                         "message": "\(verdict.message ?? "")"]
        if verdict.state == "portal" {
            logger.warning("captive portal detected on a path", metadata: metadata)
        } else {
            logger.info("captive portal check of a path", metadata: metadata)
        }
    }

    /// `paths` without repeats, in their first order.
    static func distinct(_ paths: [ProbeSource]) -> [ProbeSource] {
        var seen: Set<ProbeSource> = []
        return paths.filter { seen.insert($0).inserted }
    }
}
