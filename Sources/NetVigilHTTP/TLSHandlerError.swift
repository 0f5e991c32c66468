/// A TLS failure inside the handler.
enum TLSHandlerError: Error, Sendable {
    /// The handshake failed (OpenSSL error, an alert from the peer, bytes that are not TLS).
    case handshakeFailed(OpenSSLFailure)
    /// The peer closed the connection before the handshake completed.
    case closedDuringHandshake
    /// The served chain was refused; no application byte was written.
    case untrusted(ProbeError)
    /// A failure after the handshake completed (bad record, fatal alert, failed write).
    case postHandshakeFailed(OpenSSLFailure)
}
