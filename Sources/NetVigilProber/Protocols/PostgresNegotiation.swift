/// PostgreSQL's SSLRequest (protocol 3, §55.2.10): 8 bytes `00 00 00 08 04 d2 16 2f`, the single byte `S`, TLS,
/// then close_notify and close before any startup message (the server logs nothing for that). Never logs in.
struct PostgresNegotiation: ServiceNegotiation {
    /// Length 8, code 80877103.
    static let sslRequest: [UInt8] = [0x00, 0x00, 0x00, 0x08, 0x04, 0xD2, 0x16, 0x2F]

    private var overTLS = false
    private var isOver = false

    func connected() -> [NegotiationAction] { [.send(Self.sslRequest)] }

    mutating func tlsEstablished() -> [NegotiationAction] {
        overTLS = true
        return [.finish]
    }

    func closed() -> NegotiationAction { overTLS ? .finish : NegotiationAction.closedBeforeTLS("PostgreSQL") }

    mutating func received(_ bytes: [UInt8]) -> [NegotiationAction] {
        guard !overTLS, !isOver, let first = bytes.first else { return [] }
        isOver = true
        switch first {
        case UInt8(ascii: "S"):
            guard bytes.count == 1 else {
                return [.fail(.protocolGreeting, "the PostgreSQL server sent more bytes after agreeing to TLS (a response injection); none of them were used")]
            }
            return [.startTLS]
        case UInt8(ascii: "N"):
            return [.fail(.starttlsUnavailable, "the PostgreSQL server answered N to the SSLRequest: it does not accept TLS")]
        case UInt8(ascii: "E"):
            let text = NegotiationAction.excerpt(String(decoding: bytes.dropFirst(5).prefix(512).map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self))
            return [.fail(.protocolGreeting, "the server answered the SSLRequest with an error message: \(text)")]
        default:
            return [.fail(.protocolGreeting, "not a PostgreSQL answer to the SSLRequest (first byte 0x\(String(first, radix: 16)))")]
        }
    }
}
