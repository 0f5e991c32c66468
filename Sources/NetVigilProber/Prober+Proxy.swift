import NIOCore
import NIOHTTP1

/// How one hop uses the configured proxy.
struct ProxyRoute {
    /// The proxy.
    let proxy: ProxyConfiguration
    /// True for https:// targets (CONNECT tunnel, TLS with the origin inside it), false for absolute-form requests.
    let tunnels: Bool

    /// The route for a hop to `host`, nil when the hop goes direct (no proxy, or `no_proxy` matches).
    init?(_ proxy: ProxyConfiguration?, host: String, usesTLS: Bool) {
        guard let proxy, proxy.applies(to: host) else { return nil }
        self.proxy = proxy
        tunnels = usesTLS
    }
}

extension Prober {
    /// A resolve or connect failure on the way to the proxy, said to be one (`phase` `connect` becomes `proxy`).
    static func proxyFailure(_ error: ProbeError, route: ProxyRoute?) -> ProbeError {
        guard let route else { return error }
        var error = error
        if error.phase == ProbePhase.connect.rawValue { error.phase = ProbePhase.proxy.rawValue }
        if [.dns, .connect, .connectRefused, .connectTimeout].contains(error.kind)
            || (error.kind == .timeout && error.phase != ProbePhase.tls.rawValue) {
            error.message = "proxy \(route.proxy.url): \(error.message)"
        }
        return error
    }

    /// A 407 to an absolute-form request came from the proxy, not the origin.
    static func checkProxyAnswer(_ response: HTTPResponse, route: ProxyRoute?) throws(ProbeError) {
        guard let route, !route.tunnels, response.status == 407 else { return }
        throw ProbeError(.proxy, "the proxy \(route.proxy.url) answered 407 (proxy authentication required: check the proxy user and password file)")
    }

    /// The request head as the proxy must see it for an absolute-form request: the whole URL as the target and
    /// `Proxy-Authorization` when configured (tunnelled requests are left as they are: the proxy never sees them).
    static func proxied(_ head: HTTPRequestHead, url: String, route: ProxyRoute?) -> HTTPRequestHead {
        guard let route, !route.tunnels else { return head }
        var head = head
        head.uri = url
        if let credentials = route.proxy.credentials {
            head.headers.replaceOrAdd(name: "Proxy-Authorization", value: credentials.authorization)
        }
        return head
    }

    /// `http://host[:port]/path?query` for an absolute-form request (no user info, no fragment).
    static func absoluteForm(_ head: HTTPRequestHead, host: String, port: Int) -> String {
        let hostField = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostField)\(port == 80 ? "" : ":\(port)")\(head.uri)"
    }
}
