import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/public/status` (public mode only, open without the token): ``PublicStatusReport``.
    static func addPublicStatus(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/public/status") { _, _ -> Response in
            let now = Timestamp.now()
            let parameters = try BucketParameters([:], now: now)
            return try jsonResponse(PublicStatusReport(
                version: state.version, startedAt: state.startedAt,
                uptimeSeconds: Double(now.milliseconds - state.startedAt.milliseconds) / 1_000,
                targets: state.targetSnapshots(now: now),
                health: state.health.map { StatusReport.Health(public: $0.check()) },
                overview: try await overview(state: state, parameters: parameters)))
        }
    }
}
