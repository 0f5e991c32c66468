import Foundation

/// An HTTP proxy the probe goes through: https:// targets through a CONNECT tunnel (TLS, trust and pins end to end
/// with the origin), http:// targets with absolute-form requests. Hosts matching `noProxy` are reached directly.
/// When the proxy fails, the probe fails: it never falls back to a direct connection.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's host name or IP literal (no brackets).
    public let host: String
    /// The proxy's port (default 80, as for any http:// URL).
    public let port: Int
    /// Credentials for `Proxy-Authorization: Basic`, when the proxy asks for them.
    public var credentials: ProxyCredentials?
    /// Hosts reached without the proxy.
    public var noProxy: NoProxyList

    /// Parses `http://HOST[:PORT][/]`; any other scheme, credentials or a path are refused.
    public init(url text: String, credentials: ProxyCredentials? = nil, noProxy: NoProxyList = NoProxyList()) throws(ProxyConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL
        }
        guard scheme == "http" else { throw .unsupportedScheme(scheme) }
        guard let rawHost = components.host, !rawHost.isEmpty else { throw .invalidURL }
        guard components.user == nil, components.password == nil else { throw .credentialsInURL }
        guard components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/", components.query == nil,
              components.fragment == nil else { throw .pathInURL }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        guard !ProxyCredentials.hasControlCharacter(host), !host.contains(" ") else { throw .invalidURL }
        if let port = components.port, !(1...65_535).contains(port) { throw .invalidURL }
        self.host = host.lowercased()
        self.port = components.port ?? 80
        self.credentials = credentials
        self.noProxy = noProxy
    }

    /// `http://HOST:PORT` (no credentials).
    public var url: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The URL and the user, never the password.
    public var description: String {
        url + (credentials.map { " (user \($0.user))" } ?? "") + (noProxy.isEmpty ? "" : " no_proxy \(noProxy)")
    }

    /// Whether a request to `host` goes through this proxy (false when `noProxy` matches it).
    public func applies(to host: String) -> Bool { !noProxy.matches(host) }
}
