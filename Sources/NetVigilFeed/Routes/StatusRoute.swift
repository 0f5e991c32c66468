import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/status`: the whole state in one document (``StatusReport``); targets whose snapshot did not change
    /// since the last request are not encoded again (``TargetFragmentCache``).
    static func addStatus(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/status") { _, _ -> Response in
            let now = Timestamp.now()
            let report = StatusReport(
                version: state.version,
                startedAt: state.startedAt,
                uptimeSeconds: Double(now.milliseconds - state.startedAt.milliseconds) / 1_000,
                store: try await state.store.statistics(),
                reachability: await state.reachabilitySnapshot(),
                captivePortal: state.portal?.verdict,
                targets: state.targetSnapshots(now: now),
                health: state.health.map { StatusReport.Health($0.check()) })
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: try report.encodedJSON(cache: state.statusFragments)))
        }
    }
}
