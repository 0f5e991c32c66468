import Foundation
import Hummingbird
import NetVigilFeed
import NetVigilFleet

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
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: HubMetrics.exposition(state))))
        }
        router.get("/") { _, _ -> Response in HubPage.overview.response() }
        router.get("/endpoint") { _, _ -> Response in HubPage.endpoint.response() }
        router.get("/agents") { _, _ -> Response in HubPage.agents.response() }
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
