import NetVigilAgent

/// Where a daemon's feed answers and the token it wants, from the daemon's configuration (`status --config`).
struct FeedAccess {
    /// `http://HOST:PORT` (`https://` with `feed.tls`) for `feed.listen`; a wildcard listen address is reached on loopback.
    let url: String
    /// `feed.tls.certificate`: trusted for the feed (a self-signed feed certificate is its own anchor).
    let certificateFile: String?
    /// `feed.token`, or the content of `feed.token_file`.
    let token: String?

    init(configuration: AgentConfiguration) {
        let listen = configuration.feed.listen
        let host: String
        switch listen.host {
        case "", "0.0.0.0", "*": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let name where name.contains(":"): host = "[\(name)]"
        default: host = listen.host
        }
        url = "\(configuration.feed.tls == nil ? "http" : "https")://\(host):\(listen.port)"
        certificateFile = configuration.feed.tls?.certificateFile
        token = configuration.feed.token?.value
    }
}
