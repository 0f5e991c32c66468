import Foundation
import NetVigilTrust

/// Everything a probe needs besides the request.
public struct ProbeConfiguration: Sendable {
    /// The whole probe, all hops (default 10 s).
    public var timeout: TimeInterval
    /// One TCP connect (default 5 s, capped by what is left of `timeout`). When it runs out and another address is
    /// left, the probe tries that one (within `timeout`).
    public var connectTimeout: TimeInterval
    /// Largest body accepted (default 10 MiB), enforced while streaming.
    public var maxBodyBytes: Int
    /// Redirects followed (default 10; 0 = do not follow).
    public var maxRedirects: Int
    /// Whether an https:// URL may redirect to http:// (default false: such a redirect is not followed and the
    /// probe fails as `insecureRedirect`).
    public var allowsDowngradeRedirects: Bool
    /// Whether configured headers (credentials included) still go out after a redirect to another scheme, host or
    /// port (default false, as curl without `--location-trusted`). Never after a downgrade to http://.
    public var sendsCredentialsOnRedirect: Bool
    /// Address family.
    public var addressFamily: AddressFamily
    /// Which family goes first when `addressFamily` is `any` (default: getaddrinfo's order).
    public var preferredFamily: PreferredFamily
    /// TLS settings.
    public var tls: TLSConfiguration
    /// Client certificates (mTLS) per host; see `tlsConfiguration(for:)`.
    public var clientIdentities = ClientIdentitySet()
    /// The security policy per host.
    public var policies: PolicySet
    /// Trust anchors.
    public var trustStore: TrustStore
    /// Status / content-type validation and parsing.
    public var responseSerializer: ResponseSerializer
    /// Extra checks.
    public var expectations: ProbeExpectations
    /// HTTP versions offered over TLS (default `auto`: `h2, http/1.1`); see `tlsConfiguration(for:)`.
    public var httpVersion: HTTPVersionPreference = .auto
    /// The HTTP proxy the probe goes through (nil: direct).
    public var proxy: ProxyConfiguration? = nil
    /// Addresses to connect to instead of resolving the URL's host (`connect_to`; nil: resolve).
    public var connectTo: ConnectOverride? = nil
    /// The interface or local address the probe's connections are bound to (`source:`; nil: the kernel's route).
    /// An `.address` source only reaches addresses of its own family.
    public var source: ProbeSource? = nil
    /// The daemon's own listening sockets (the feed's): revocation fetches never connect to them.
    public var ownListeners: [OwnListener] = []
    /// Told of each revocation fetch refused because of where it would connect (the daemon logs and counts them).
    public var revocationFetchRefused: (@Sendable (RevocationFetchRefusal) -> Void)? = nil
    /// Set on revocation fetches' own configurations only: where their hops may not connect.
    var fetchGuard: RevocationFetchGuard? = nil
    /// Trust evaluators made for this configuration, shared by its copies.
    let trustEvaluators = TrustEvaluators()
    /// CRLs downloaded from distribution points, shared by the copies of this configuration.
    let crlCache = CRLCache()

    /// Makes a configuration with the defaults above.
    public init(trustStore: TrustStore, policies: PolicySet? = nil, timeout: TimeInterval = 10, connectTimeout: TimeInterval = 5,
                maxBodyBytes: Int = 10 * 1024 * 1024, maxRedirects: Int = 10, allowsDowngradeRedirects: Bool = false,
                sendsCredentialsOnRedirect: Bool = false, addressFamily: AddressFamily = .any,
                preferredFamily: PreferredFamily = .system,
                tls: TLSConfiguration = TLSConfiguration(), responseSerializer: ResponseSerializer = .http,
                expectations: ProbeExpectations = ProbeExpectations()) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.allowsDowngradeRedirects = allowsDowngradeRedirects
        self.sendsCredentialsOnRedirect = sendsCredentialsOnRedirect
        self.addressFamily = addressFamily
        self.preferredFamily = preferredFamily
        self.tls = tls
        // Safe: an empty entry list never throws.
        self.policies = policies ?? (try! PolicySet(entries: []))
        self.trustStore = trustStore
        self.responseSerializer = responseSerializer
        self.expectations = expectations
    }
}
