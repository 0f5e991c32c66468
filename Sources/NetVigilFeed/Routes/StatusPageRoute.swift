import Hummingbird

extension FeedRoutes {
    /// `GET /`: the status page, and `GET /targets/{name}`: a target's page (open even with a token: they hold no
    /// data and ask for the token themselves).
    static func addStatusPage(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ -> Response in
            StatusPage.response()
        }
        router.get("/targets/:name") { _, _ -> Response in
            TargetPage.response()
        }
    }
}
