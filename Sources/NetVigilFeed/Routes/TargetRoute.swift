import Foundation
import Hummingbird
import NetVigilAgent
import NetVigilConcurrency
import NetVigilStore

extension FeedRoutes {
    /// How many recent results `GET /v1/targets/{name}` includes.
    static let recentResultCount = 50

    /// `GET /v1/targets/{name}`: one target's status (as in `/v1/status`) with its last 50 results, newest first,
    /// as export row objects.
    static func addTarget(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/v1/targets/:name") { _, context -> Response in
            let name = try context.parameters.require("name")
            guard let snapshot = state.targetSnapshot(name) else {
                throw FeedRequestError("no target named \"\(name)\"", status: .notFound)
            }
            let exporter = HistoryExporter(store: state.store, version: state.version)
            let store = state.store
            let items = try await BlockingWork.run { () -> [[UInt8]] in
                // From the 50th newest result on (all of them when there are fewer); ties may add a few, cut below.
                let since = try store.probeTimeBound(target: name, newest: recentResultCount) ?? Timestamp(milliseconds: 0)
                var rows: [[UInt8]] = []
                var cursor: HistoryCursor? = nil
                repeat {
                    let page = try exporter.page(ExportQuery(since: since, targets: [name], kinds: [.probes]),
                                                 after: cursor, limit: HistoryExporter.maximumPageSize)
                    rows += page.items
                    cursor = page.nextCursor
                } while cursor != nil
                return Array(rows.suffix(recentResultCount).reversed())
            }
            var body = Array("{\"target\":".utf8)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            body += try encoder.encode(snapshot)
            body += Array(",\"results\":[".utf8)
            for (index, item) in items.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += item
            }
            body += Array("]}\n".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
