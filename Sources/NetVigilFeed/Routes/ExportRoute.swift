import Hummingbird
import NetVigilStore

extension FeedRoutes {
    /// `GET /v1/export`: the full export, streamed by the same `HistoryExporter` code as `netvigil export`.
    /// A response runs at most `state.exportTimeLimit`; past it the body ends without its final chunk.
    static func addExport(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/export") { request, context -> Response in
            let parameters = try HistoryParameters(QueryParameters.values(of: request), route: .export)
            let exporter = HistoryExporter(store: state.store, version: state.version,
                                           targetLabels: state.targets?.labelsByTarget ?? [:])
            let contentType = parameters.format == .json ? "application/json" : "application/x-ndjson"
            let logger = context.logger
            return Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody { writer in
                do {
                    try await ExportResponseStream.write(exporter, query: parameters.query, format: parameters.format,
                                                         timeLimit: state.exportTimeLimit, to: &writer)
                } catch {
                    // The status line is already sent: closing without the final chunk tells the client it is cut short.
                    logger.warning("export stream ended early", metadata: ["error": "\(error)"])
                    throw error
                }
                try await writer.finish(nil)
            })
        }
    }
}
