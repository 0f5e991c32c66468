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
            let query: FleetExportQuery
            let format: FleetExportFormat
            do {
                (query, format) = try exportParameters(request)
            } catch let error as ParameterError {
                return try jsonResponse(ErrorBody(error: error.message), status: .badRequest)
            }
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

    struct ParameterError: Error {
        var message: String
    }

    /// `since`/`until` (RFC 3339 or relative like -24h; default the last 24 hours, at most 31 days), `agent`,
    /// `endpoint`, `format` (`ndjson`, the default, or `json`).
    static func exportParameters(_ request: Request, now: Timestamp = .now()) throws(ParameterError) -> (FleetExportQuery, FleetExportFormat) {
        let allowed = ["since", "until", "agent", "endpoint", "format"]
        var values: [String: String] = [:]
        for (name, value) in request.uri.queryParameters {
            let name = String(name)
            guard allowed.contains(name) else {
                throw ParameterError(message: "unknown parameter \"\(name.prefix(40))\" (expected one of \(allowed.joined(separator: ", ")))")
            }
            guard values[name] == nil else { throw ParameterError(message: "\(name): give it at most once") }
            values[name] = String(value)
        }
        func time(_ name: String) throws(ParameterError) -> Timestamp? {
            guard let text = values[name] else { return nil }
            guard let value = Timestamp.parse(text, now: now) else {
                throw ParameterError(message: "\(name): cannot parse time \"\(text.prefix(40))\" (use RFC 3339 like 2026-11-22T10:00:00Z, or -24h)")
            }
            return value
        }
        let until = try time("until") ?? now
        let since = try time("since") ?? until.adding(.seconds(-86_400))
        guard since < until else { throw ParameterError(message: "until (\(until)) must be after since (\(since))") }
        guard until.milliseconds - since.milliseconds <= Int64(FleetExportQuery.maximumSpan.components.seconds) * 1000 else {
            throw ParameterError(message: "at most 31 days per export (since \(since), until \(until)): export longer ranges in parts")
        }
        for name in ["agent", "endpoint"] where values[name]?.isEmpty == true {
            throw ParameterError(message: "\(name): must not be empty")
        }
        guard let format = FleetExportFormat(rawValue: values["format"] ?? "ndjson") else {
            throw ParameterError(message: "format: expected ndjson or json")
        }
        return (FleetExportQuery(since: since, until: until, agent: values["agent"], endpoint: values["endpoint"]), format)
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
