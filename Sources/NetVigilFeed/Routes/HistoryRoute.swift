import Hummingbird
import NetVigilConcurrency
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/history`: one page of history as export row objects, with a cursor for the next page.
    static func addHistory(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/history") { request, _ -> Response in
            let parameters = try HistoryParameters(QueryParameters.values(of: request), route: .history)
            let exporter = HistoryExporter(store: state.store, version: state.version)
            let page = try await BlockingWork.run {
                try exporter.page(parameters.query, after: parameters.cursor, limit: parameters.limit)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: page.json)))
        }
    }
}
