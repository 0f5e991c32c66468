import COpenSSL

/// TLS settings of a probe connection.
public struct TLSConfiguration: Sendable, Hashable {
    /// A TLS protocol version.
    public enum Version: String, Sendable, Hashable, Codable, CaseIterable {
        case tls12 = "TLSv1.2"
        case tls13 = "TLSv1.3"

        var openSSLValue: Int {
            switch self {
            case .tls12: return Int(TLS1_2_VERSION)
            case .tls13: return Int(TLS1_3_VERSION)
            }
        }
    }

    /// The lowest version offered (default TLS 1.2).
    public var minimumVersion: Version
    /// ALPN protocols offered (default `http/1.1`; a probe sets them from `ProbeConfiguration.httpVersion`).
    public var alpnProtocols: [String]

    /// The client certificate (mTLS) presented when the server asks for one; nil presents none.
    public var clientIdentity: ClientIdentity? = nil

    /// Makes a configuration.
    public init(minimumVersion: Version = .tls12, alpnProtocols: [String] = ["http/1.1"]) {
        self.minimumVersion = minimumVersion
        self.alpnProtocols = alpnProtocols
    }
}
