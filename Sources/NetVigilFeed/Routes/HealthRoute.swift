import Hummingbird
import NetVigilAgent

extension FeedRoutes {
    /// `GET /healthz`: 200 `ok` (`ok; warning: …` when something that leaves probing healthy is wrong, e.g. the
    /// fleet shipping lag), or 503 with the reasons the daemon is unhealthy (see ``healthReport(_:)``).
    /// The only route the bearer token does not guard.
    static func addHealth(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/healthz") { _, _ -> Response in
            let report = await healthReport(state)
            return Response(status: report.isHealthy ? .ok : .serviceUnavailable,
                            headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: healthText(report))))
        }
    }
}

/// The body of `/healthz`: `ok`, `ok; warning: …` or `unhealthy: …`.
func healthText(_ report: DaemonHealth.Report) -> String {
    guard report.isHealthy else { return "unhealthy: \(report.summary)\n" }
    return report.warnings.isEmpty ? "ok\n" : "ok; warning: \(report.warnings.joined(separator: "; "))\n"
}

/// The daemon's liveness (when the feed runs in one), then whether the store takes a write lock within 2 s.
func healthReport(_ state: FeedState) async -> DaemonHealth.Report {
    let live = state.health?.check()
    if let live, !live.isHealthy { return live }
    let store = state.store
    let writable = await withTaskGroup(of: Bool?.self) { group in
        group.addTask { await store.isWritable() }
        group.addTask {
            try? await Task.sleep(for: .seconds(2))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    switch writable {
    case true?: return DaemonHealth.Report(problems: [], warnings: live?.warnings ?? [])
    case false?: return DaemonHealth.Report(problems: ["store not writable"])
    case nil: return DaemonHealth.Report(problems: ["store not writable: no write lock within 2 s"])
    }
}
