import Hummingbird

extension FeedRoutes {
    /// `GET /`: the status page, and `GET /targets/{name}`: a target's page (open even with a token: they hold no
    /// data and ask for the token themselves). With `publicStatus` the overview reads `/v1/public/status` until a
    /// token is given.
    static func addStatusPage(to router: Router<BasicRequestContext>, publicStatus: Bool = false) {
        router.get("/") { _, _ -> Response in
            StatusPage.response(publicStatus: publicStatus)
        }
        router.get("/targets/:name") { _, _ -> Response in
            TargetPage.response()
        }
    }
}
