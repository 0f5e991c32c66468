/// Which HTTP versions a probe offers over TLS (the target key `http_version`, `netvigil probe --http-version`).
public enum HTTPVersionPreference: String, Sendable, Hashable, CaseIterable {
    /// Offer `h2, http/1.1` in ALPN and speak what the server selects (the default, as browsers and
    /// blackbox_exporter do). http:// URLs speak HTTP/1.1.
    case auto
    /// Offer only `http/1.1`.
    case http1_1 = "1.1"
    /// Offer `h2, http/1.1` and fail as `http2Unavailable` unless the server selects `h2` (http:// URLs too).
    case http2 = "2"

    /// The ALPN protocol names offered, most preferred first. `"2"` offers `http/1.1` as well so that a server
    /// without HTTP/2 completes the handshake (its chain is judged) and the failure is `http2Unavailable`, not a
    /// `no_application_protocol` alert.
    public var alpnProtocols: [String] {
        self == .http1_1 ? [Self.http1ALPN] : [Self.http2ALPN, Self.http1ALPN]
    }

    /// The ALPN name of HTTP/2 over TLS.
    public static let http2ALPN = "h2"
    /// The ALPN name of HTTP/1.1.
    public static let http1ALPN = "http/1.1"
}
