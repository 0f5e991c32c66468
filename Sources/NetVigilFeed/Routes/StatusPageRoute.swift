import Hummingbird

extension FeedRoutes {
    /// `GET /`: the status page (open even with a token: it holds no data and asks for the token itself).
    static func addStatusPage(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ -> Response in
            StatusPage.response()
        }
    }
}
