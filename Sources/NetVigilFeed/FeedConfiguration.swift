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
    /// HTTPS with this (swappable) context; nil: plain HTTP.
    public var tls: FeedTLSContext?
    /// Serve the status page, badges and `/v1/public/status` (redacted) without the token.
    public var publicStatus: Bool

    public init(listen: ListenAddress = FeedSection().listen, token: Secret? = nil,
                maxConnections: Int = FeedSection().maxConnections, idleTimeout: Duration = FeedSection().idleTimeout,
                tls: FeedTLSContext? = nil, publicStatus: Bool = false) {
        self.listen = listen
        self.token = token
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.tls = tls
        self.publicStatus = publicStatus
    }

    /// The section's settings; `feed.tls` becomes a new ``FeedTLSContext`` (keep it to swap contexts on reload).
    public init(_ section: FeedSection) {
        self.init(listen: section.listen, token: section.token, maxConnections: section.maxConnections,
                  idleTimeout: section.idleTimeout, tls: section.tls.map { FeedTLSContext($0.context) },
                  publicStatus: section.publicStatus)
    }
}
