import Hummingbird

/// `Content-Type` of the Prometheus text exposition format.
let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

extension FeedRoutes {
    /// `GET /metrics`: the Prometheus text format of `state.metrics` (404 when the feed runs without metrics), written
    /// in chunks as it is rendered (chunked transfer encoding).
    ///
    /// Values read at scrape time (the netlink resync total) are refreshed first. The bearer-token middleware added
    /// before this route applies to it like to every route but `/healthz`.
    static func addMetrics(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/metrics") { _, _ -> Response in
            guard let metrics = state.metrics else {
                return try jsonResponse(["error": "metrics are not enabled in this feed"], status: .notFound)
            }
            _ = state.health?.check()
            if let events = state.events {
                metrics.agent.eventSubscribers(events.subscriberCount)
            }
            if let monitor = state.reachability {
                metrics.agent.netlinkResyncs(total: await monitor.resyncCount)
            }
            let exposition = metrics.scrape()
            return Response(status: .ok, headers: [.contentType: prometheusContentType], body: ResponseBody { writer in
                var chunks = exposition
                while let chunk = chunks.next() {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            })
        }
    }
}
