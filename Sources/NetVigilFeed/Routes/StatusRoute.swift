import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/status`: the whole state in one document (``StatusReport``); targets whose state did not change
    /// since the last request are neither built nor encoded again (``TargetFragmentCache``). `?view=brief` sends each target as
    /// ``BriefTargetSnapshot`` (what `netvigil status` shows); `?view=full` is the default.
    static func addStatus(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/status") { request, _ -> Response in
            let brief = try isBriefView(request.uri.queryParameters[values: "view"])
            let now = Timestamp.now()
            let report = StatusReport(
                version: state.version,
                startedAt: state.startedAt,
                uptimeSeconds: Double(now.milliseconds - state.startedAt.milliseconds) / 1_000,
                store: try await state.store.statistics(),
                reachability: await state.reachabilitySnapshot(),
                captivePortal: state.portal?.verdict,
                targets: [],
                health: state.health.map { StatusReport.Health($0.check()) })
            let sources = state.targetSources(now: now, uptime: !brief)  // the brief view has no uptime
            let encoded = brief ? try report.encodedJSON(targets: sources, cache: state.briefStatusFragments)
                                : try report.encodedJSON(targets: sources, cache: state.statusFragments)
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(contentLength: encoded.count) { writer in
                                var chunks = encoded.chunks()
                                while let chunk = chunks.next() { try await writer.write(chunk) }
                                try await writer.finish(nil)
                            })
        }
    }

    /// Whether `view` (the values of the `view` parameter) asks for the brief document; 400 for another value.
    static func isBriefView(_ view: [Substring]) throws -> Bool {
        switch view.last {
        case nil, "full": return false
        case "brief": return true
        case let other?: throw FeedRequestError("unknown view \"\(other.prefix(40))\" (expected full or brief)")
        }
    }
}
