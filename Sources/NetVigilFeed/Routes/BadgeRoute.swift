import Hummingbird
import NetVigilAgent

extension FeedRoutes {
    /// `GET /badge/{name}/status.svg`, `…/uptime-24h.svg`, `…/cert-days.svg`: shields-style SVG badges of one target,
    /// for READMEs and wiki pages (behind the token like every route but `/healthz`).
    static func addBadges(to router: Router<BasicRequestContext>, state: FeedState) {
        router.get("/badge/:name/:badge") { _, context -> Response in
            let name = try context.parameters.require("name")
            let kind = try context.parameters.require("badge")
            let make: (TargetSnapshot) -> Badge
            switch kind {
            case "status.svg": make = Badge.status
            case "uptime-24h.svg": make = Badge.uptime24h
            case "cert-days.svg": make = Badge.certificateDays
            default: throw FeedRequestError("no badge \"\(kind)\" (status.svg, uptime-24h.svg, cert-days.svg)", status: .notFound)
            }
            guard let snapshot = state.targetSnapshot(name) else {
                throw FeedRequestError("no target named \"\(name)\"", status: .notFound)
            }
            return Response(status: .ok,
                            headers: [.contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-cache, max-age=0"],
                            body: .init(byteBuffer: ByteBuffer(string: make(snapshot).svg)))
        }
    }
}
