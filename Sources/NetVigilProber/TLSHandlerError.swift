/// A TLS failure inside the handler.
enum TLSHandlerError: Error, Sendable {
    /// The handshake failed (OpenSSL error, an alert from the peer, bytes that are not TLS).
    case handshakeFailed(OpenSSLFailure)
    /// The peer closed the connection before the handshake completed.
    case closedDuringHandshake
    /// The served chain was refused; no application byte was written.
    case untrusted(ProbeError)
    /// The server refused the client certificate (or its absence) with an alert: `clientCertificateRequired`
    /// or `clientCertificateRejected`, during the handshake or (TLS 1.3) right after it.
    case clientCertificateRefused(ProbeError)
    /// A failure after the handshake completed (bad record, fatal alert, failed write).
    case postHandshakeFailed(OpenSSLFailure)
}
