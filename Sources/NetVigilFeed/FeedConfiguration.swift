import NetVigilAgent

/// How the feed listens and who may read it.
public struct FeedConfiguration: Sendable {
    /// Bind address; 127.0.0.1:9337 by default.
    public var listen: ListenAddress
    /// Bearer token for every route but `/healthz`; nil for none.
    public var token: Secret?

    public init(listen: ListenAddress = FeedSection().listen, token: Secret? = nil) {
        self.listen = listen
        self.token = token
    }

    public init(_ section: FeedSection) {
        self.init(listen: section.listen, token: section.token)
    }
}
