/// One protocol's way to a TLS session and a clean goodbye, as a pure state machine: the channel handler feeds it
/// the connection's events and performs the actions it returns. No sockets, so each protocol is unit-tested with
/// bytes alone.
///
/// Before `startTLS` the machine reads plaintext; after `tlsEstablished()` it reads what the TLS handler decrypted.
/// A machine returns at most one terminal action (`startTLS`, `finish`, `fail`) per stage, as the last action.
protocol ServiceNegotiation: Sendable {
    /// The TCP connection is up (implicit-TLS schemes answer `startTLS` at once).
    mutating func connected() -> [NegotiationAction]
    /// Bytes from the server.
    mutating func received(_ bytes: [UInt8]) -> [NegotiationAction]
    /// The TLS handshake completed (what is sent now waits in the TLS handler until the chain is trusted).
    mutating func tlsEstablished() -> [NegotiationAction]
    /// The server closed the connection: `finish` when that is the expected end, otherwise a failure.
    func closed() -> NegotiationAction
}
