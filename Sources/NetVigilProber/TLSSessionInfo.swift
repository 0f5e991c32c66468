import Foundation
import NetVigilTrust

/// What a completed handshake negotiated, and the chain the server sent.
public struct TLSSessionInfo: Sendable {
    /// `TLSv1.2` or `TLSv1.3`.
    public var version: String
    /// The OpenSSL cipher suite name.
    public var cipher: String
    /// The ALPN protocol selected by the server, nil when none.
    public var alpn: String?
    /// The served chain, leaf first.
    public var servedChain: [Certificate]
    /// Whether the server asked for a client certificate (sent a CertificateRequest).
    public var clientCertificateRequested = false
    /// Whether a client certificate was presented.
    public var clientCertificatePresented = false
    /// The OCSP response the server stapled (DER), nil when none.
    public var stapledOCSP: Data? = nil
}
