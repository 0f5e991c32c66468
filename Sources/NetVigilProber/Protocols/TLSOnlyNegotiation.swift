/// `tls://HOST:PORT`: TLS at once, trust and pins, close_notify; no application byte either way.
struct TLSOnlyNegotiation: ServiceNegotiation {
    private var established = false

    func connected() -> [NegotiationAction] { [.startTLS] }

    func received(_ bytes: [UInt8]) -> [NegotiationAction] { [] }

    mutating func tlsEstablished() -> [NegotiationAction] {
        established = true
        return [.finish]
    }

    func closed() -> NegotiationAction {
        established ? .finish : .fail(.tlsHandshake, "the server closed the connection during the TLS handshake")
    }
}
