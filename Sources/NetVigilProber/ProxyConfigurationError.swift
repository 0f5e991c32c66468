/// Why a proxy setting cannot be used. Messages never quote a password.
public enum ProxyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an `http://HOST[:PORT]` URL.
    case invalidURL
    /// `https://` (or another) scheme: only plain-HTTP proxies are supported.
    case unsupportedScheme(String)
    /// `user:password@` in the URL.
    case credentialsInURL
    /// A path, query or fragment after the authority.
    case pathInURL
    /// An empty user name, one with ':' or control characters.
    case invalidUser
    /// A password with control characters.
    case invalidPassword
    /// A `no_proxy` entry that is neither a host suffix, an IP address nor a CIDR block.
    case invalidNoProxyEntry(String)

    public var description: String {
        switch self {
        case .invalidURL: "expected a proxy URL like http://proxy.example.com:3128"
        case .unsupportedScheme(let scheme):
            scheme == "https"
                ? "https:// proxies are not supported; use the proxy's http:// URL (https:// targets still run TLS end to end through a CONNECT tunnel)"
                : "\(scheme):// proxies are not supported; expected an http:// proxy URL"
        case .credentialsInURL: "credentials in the proxy URL are not accepted; use user and password_file"
        case .pathInURL: "a proxy URL has no path, query or fragment (http://HOST:PORT)"
        case .invalidUser: "a proxy user name must not be empty or contain ':' or control characters"
        case .invalidPassword: "a proxy password must not contain control characters (NUL, CR, LF, DEL, ...)"
        case .invalidNoProxyEntry(let entry):
            "no_proxy entry \"\(entry)\" is not a host name suffix, an IP address or a CIDR block"
        }
    }
}
