/// A TLS failure inside the handler.
enum TLSHandlerError: Error, Sendable {
    /// The handshake failed; `alert` names the TLS alert when one was involved.
    case handshakeFailed(alert: String?, detail: String)
    /// The peer closed the connection before the handshake completed.
    case closedDuringHandshake
    /// The served chain was refused; no application byte was written.
    case untrusted(ProbeError)
    /// A failure after the handshake (bad record, ...).
    case protocolFailure(String)
}
