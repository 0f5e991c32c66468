import NetVigilAgent

/// How the feed listens and who may read it.
public struct FeedConfiguration: Sendable {
    /// Bind address; 127.0.0.1:9337 by default.
    public var listen: ListenAddress
    /// Bearer token for every route but `/healthz`; nil for none.
    public var token: Secret?
    /// Open connections at most (more wait in the kernel's accept queue).
    public var maxConnections: Int
    /// Idle connections, and connections that do not send a complete request head, are closed after this.
    public var idleTimeout: Duration

    public init(listen: ListenAddress = FeedSection().listen, token: Secret? = nil,
                maxConnections: Int = FeedSection().maxConnections, idleTimeout: Duration = FeedSection().idleTimeout) {
        self.listen = listen
        self.token = token
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
    }

    public init(_ section: FeedSection) {
        self.init(listen: section.listen, token: section.token, maxConnections: section.maxConnections,
                  idleTimeout: section.idleTimeout)
    }
}
