import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/status`: the whole state in one document (``StatusReport``); targets whose state did not change
    /// since the last request are neither built nor encoded again (``TargetFragmentCache``). `?view=brief` sends each
    /// target as ``BriefTargetSnapshot`` (what `netvigil status` shows), `?view=rows` the same fields as arrays
    /// (``TargetRow``); `?view=full` is the default.
    static func addStatus(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/status") { request, _ -> Response in
            let view = try StatusView(request.uri.queryParameters[values: "view"])
            let now = Timestamp.now()
            var report = StatusReport(
                version: state.version,
                startedAt: state.startedAt,
                uptimeSeconds: Double(now.milliseconds - state.startedAt.milliseconds) / 1_000,
                store: try await state.store.statistics(),
                reachability: await state.reachabilitySnapshot(),
                captivePortal: state.portal?.verdict,
                targets: [],
                health: state.health.map { StatusReport.Health($0.check()) })
            let sources = state.targetSources(now: now, uptime: view == .full)  // the other views have no uptime
            let encoded: EncodedStatusReport
            switch view {
            case .full:
                encoded = try report.encodedJSON(targets: sources, cache: state.statusFragments)
            case .brief:
                encoded = try report.encodedJSON(targets: sources, cache: state.briefStatusFragments)
            case .rows:
                report.targetColumns = TargetRow.columns
                encoded = try report.encodedJSON(targets: sources, cache: state.rowStatusFragments)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(contentLength: encoded.count) { writer in
                                var chunks = encoded.chunks()
                                while let chunk = chunks.next() { try await writer.write(chunk) }
                                try await writer.finish(nil)
                            })
        }
    }
}

/// How `GET /v1/status` sends each target: `full` (the default), `brief` or `rows`.
enum StatusView: String, Sendable {
    case full, brief, rows

    /// The view `values` (the `view` parameter's values, the last one counting) ask for; 400 for an unknown one.
    init(_ values: [Substring]) throws {
        guard let last = values.last else {
            self = .full
            return
        }
        guard let view = StatusView(rawValue: String(last)) else {
            throw FeedRequestError("unknown view \"\(last.prefix(40))\" (expected full, brief or rows)")
        }
        self = view
    }
}
