import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// The aggregated series, computed in SQL (the browser never gets raw rows), behind the token like `/v1/status`:
    /// - `GET /v1/targets/{name}/uptime?range=24h&bucket=30m`: per bucket ok/failed/skipped counts and the worst outcome;
    /// - `GET /v1/targets/{name}/timings?range=24h&bucket=30m`: per bucket average and maximum of each phase;
    /// - `GET /v1/overview?range=24h&bucket=30m`: every configured target's counts and average total time per bucket.
    ///
    /// See ``BucketParameters`` for the limits; an unknown target is a 404.
    static func addSeries(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/targets/:name/uptime") { request, context -> Response in
            try await targetSeries(request, context, state: state) { store, name, window in
                try await store.outcomeBuckets(target: name, window: window).map(UptimeBucketEntry.init)
            }
        }
        router.get("/v1/targets/:name/timings") { request, context -> Response in
            try await targetSeries(request, context, state: state) { store, name, window in
                try await store.timingBuckets(target: name, window: window).map(TimingBucketEntry.init)
            }
        }
        router.get("/v1/overview") { request, _ -> Response in
            let parameters = try BucketParameters(QueryParameters.values(of: request))
            return try jsonResponse(try await overview(state: state, parameters: parameters))
        }
    }

    /// Every configured target's outcome buckets, in configuration order.
    static func overview(state: FeedState, parameters: BucketParameters) async throws -> SeriesDocument<OverviewTargetEntry> {
        let names = state.targets?.names ?? []
        let buckets = try await state.store.outcomeBuckets(targets: Set(names), window: parameters.window)
        let entries = names.map { OverviewTargetEntry(name: $0, buckets: buckets[$0] ?? []) }
        return SeriesDocument(target: nil, parameters: parameters, targets: entries)
    }

    /// One target's series: parameters validated, a 404 unless the target is configured, then `load`'s buckets.
    private static func targetSeries<Entry: Encodable & Sendable>(
        _ request: Request, _ context: BasicRequestContext, state: FeedState,
        load: (Store, String, Store.BucketWindow) async throws -> [Entry]
    ) async throws -> Response {
        let name = try context.parameters.require("name")
        let parameters = try BucketParameters(QueryParameters.values(of: request))
        guard state.targets?.names.contains(name) == true else {
            throw FeedRequestError("no target named \"\(name)\"", status: .notFound)
        }
        let buckets = try await load(state.store, name, parameters.window)
        return try jsonResponse(SeriesDocument(target: name, parameters: parameters, buckets: buckets))
    }
}
