import Foundation
import Hummingbird
import NetVigilFeed
import NetVigilAgent
import NetVigilFleet
import NetVigilStore

/// The hub's routes (docs/fleet.md, "The fleet view").
enum HubRoutes {
    static func add(to router: Router<BasicRequestContext>, state: FleetHubState) {
        // Liveness: 503 when no evaluation succeeded for three intervals (the database is away, the schema is old).
        router.get("/healthz") { _, _ -> Response in
            let problem = state.healthProblem()
            return Response(status: problem == nil ? .ok : .serviceUnavailable,
                            headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: problem.map { "unhealthy: \($0)\n" } ?? "ok\n")))
        }
        router.get("/v1/fleet/status") { _, _ -> Response in
            do {
                return try jsonResponse(try await state.report())
            } catch {
                return unavailable(error)
            }
        }
        router.get("/v1/fleet/endpoint") { request, _ -> Response in
            guard let endpoint = request.uri.queryParameters.get("endpoint"), !endpoint.isEmpty else {
                return try jsonResponse(ErrorBody(error: "give the endpoint: /v1/fleet/endpoint?endpoint=URL"), status: .badRequest)
            }
            do {
                guard let detail = try await state.endpointDetail(endpoint) else {
                    return try jsonResponse(ErrorBody(error: "no agent has a result for \(endpoint)"), status: .notFound)
                }
                return try jsonResponse(detail)
            } catch {
                return unavailable(error)
            }
        }
        router.get("/v1/fleet/export") { request, context -> Response in
            // A bad parameter is a `FeedRequestError`: 400 with its one line, as on the agent's feed.
            let (query, format) = try exportParameters(request)
            let logger = context.logger
            return Response(status: .ok, headers: [.contentType: format == .json ? "application/json" : "application/x-ndjson"],
                            body: ResponseBody { writer in
                do {
                    try await state.export(query, format: format, version: NetVigilVersion.current,
                                           deadline: .now + exportTimeLimit) { text in
                        try await writer.write(ByteBuffer(string: text))
                    }
                } catch {
                    // The status line is sent: ending without the final chunk tells the client it is cut short.
                    logger.warning("fleet export ended early", metadata: ["error": "\(error)"])
                    throw error
                }
                try await writer.finish(nil)
            })
        }
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: HubMetrics.exposition(state))))
        }
        router.get("/") { _, _ -> Response in HubPage.overview.response() }
        router.get("/endpoint") { _, _ -> Response in HubPage.endpoint.response() }
        router.get("/agents") { _, _ -> Response in HubPage.agents.response() }
    }

    /// A fleet export runs at most this long.
    static let exportTimeLimit = Duration.seconds(600)

    /// `since`/`until` (RFC 3339 or relative like -24h; default the last 24 hours, at most 31 days), `agent`,
    /// `endpoint`, `format` (`ndjson`, the default, or `json`).
    static func exportParameters(_ request: Request, now: Timestamp = .now()) throws(FeedRequestError) -> (FleetExportQuery, FleetExportFormat) {
        let names = ["since", "until", "agent", "endpoint", "format"]
        let parameters = try QueryParameters(request, accepted: names, once: names)
        let until = try parameters.time("until", now: now) ?? now
        let since = try parameters.time("since", now: now) ?? until.adding(.seconds(-86_400))
        guard since < until else { throw FeedRequestError("until (\(until)) must be after since (\(since))") }
        guard until.milliseconds - since.milliseconds <= Int64(FleetExportQuery.maximumSpan.components.seconds) * 1000 else {
            throw FeedRequestError("at most 31 days per export (since \(since), until \(until)): export longer ranges in parts")
        }
        for name in ["agent", "endpoint"] where parameters[name]?.isEmpty == true {
            throw FeedRequestError("\(name): must not be empty")
        }
        guard let format = FleetExportFormat(rawValue: parameters["format"] ?? "ndjson") else {
            throw FeedRequestError("format: expected ndjson or json")
        }
        return (FleetExportQuery(since: since, until: until, agent: parameters["agent"], endpoint: parameters["endpoint"]), format)
    }

    struct ErrorBody: Encodable {
        var error: String
    }

    /// 503 with the database's error as one line.
    static func unavailable(_ error: any Error) -> Response {
        let message = FleetError.classify(error).message
        let body = (try? JSONEncoder().encode(ErrorBody(error: "fleet database: \(message)"))) ?? Data()
        return Response(status: .serviceUnavailable, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body + [0x0a])))
    }
}
