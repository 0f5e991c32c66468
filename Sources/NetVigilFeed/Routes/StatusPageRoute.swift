import Foundation
import Hummingbird

extension FeedRoutes {
    /// `GET /`: the status page, and `GET /targets/{name}`: a target's page (open even with a token: they hold no
    /// data and ask for the token themselves). With `publicStatus` the overview reads `/v1/public/status` until a
    /// token is given. Where target names are no secret (`namesOpen`: no token, or public mode), an unknown name
    /// gets the `404` ``TargetNotFoundPage``.
    static func addStatusPage(to router: Router<BasicRequestContext>, state: FeedState, publicStatus: Bool = false,
                              namesOpen: Bool = true) {
        router.get("/") { _, _ -> Response in
            StatusPage.response(publicStatus: publicStatus)
        }
        router.get("/targets/:name") { _, context -> Response in
            // The page's script reads its name from the path the same way (decodeURIComponent).
            let path = try context.parameters.require("name")
            let name = path.removingPercentEncoding ?? path
            if namesOpen, !state.hasTarget(name) {
                return TargetNotFoundPage.response(name: name)
            }
            return TargetPage.response()
        }
    }
}
