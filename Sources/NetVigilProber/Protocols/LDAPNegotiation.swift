/// LDAP StartTLS (RFC 4511 §4.14): the StartTLS extended request (OID 1.3.6.1.4.1.1466.20037), resultCode 0 in
/// the extended response, TLS, unbind. `ldaps://`: TLS at once, unbind. Never binds.
struct LDAPNegotiation: ServiceNegotiation {
    /// The StartTLS extended operation's OID.
    static let startTLSOID = "1.3.6.1.4.1.1466.20037"
    /// The largest response accepted (an extended response is a few dozen bytes plus a diagnostic message).
    static let maxMessageBytes = 8 * 1024

    /// `LDAPMessage { messageID 1, extendedReq [APPLICATION 23] { requestName [0] OID } }`.
    static var startTLSRequest: [UInt8] {
        let request = BERElement.encode(tag: 0x77, BERElement.encode(tag: 0x80, Array(startTLSOID.utf8)))
        return BERElement.encode(tag: 0x30, BERElement.encode(tag: 0x02, [1]) + request)
    }

    /// `LDAPMessage { messageID 2, unbindRequest [APPLICATION 2] NULL }`.
    static let unbindRequest: [UInt8] = BERElement.encode(tag: 0x30, BERElement.encode(tag: 0x02, [2]) + [0x42, 0x00])

    private let implicitTLS: Bool
    private var overTLS = false
    private var isOver = false
    private var pending: [UInt8] = []

    init(implicitTLS: Bool) {
        self.implicitTLS = implicitTLS
    }

    func connected() -> [NegotiationAction] { implicitTLS ? [.startTLS] : [.send(Self.startTLSRequest)] }

    mutating func tlsEstablished() -> [NegotiationAction] {
        overTLS = true
        return [.send(Self.unbindRequest), .finish]
    }

    func closed() -> NegotiationAction { overTLS ? .finish : NegotiationAction.closedBeforeTLS("LDAP") }

    mutating func received(_ bytes: [UInt8]) -> [NegotiationAction] {
        guard !overTLS, !isOver else { return [] }
        pending += bytes
        let action: NegotiationAction
        switch BERElement.read(pending[...], at: 0, maxLength: Self.maxMessageBytes) {
        case .needsMore where pending.first == 0x30:
            return []
        case .invalid, .needsMore:
            action = .fail(.protocolGreeting, "not an LDAP message (or one over \(Self.maxMessageBytes) bytes)")
        case .element(let message):
            action = Self.judge(message, trailing: pending.count - message.end)
        }
        isOver = true
        return [action]
    }

    /// The StartTLS extended response in `message`: TLS when resultCode is 0 and nothing follows it.
    private static func judge(_ message: BERElement, trailing: Int) -> NegotiationAction {
        guard message.tag == 0x30, let parts = message.children, parts.count >= 2, parts[0].tag == 0x02,
              let id = parts[0].integer, parts[1].tag == 0x78, let fields = parts[1].children, fields.count >= 3,
              fields[0].tag == 0x0A, let resultCode = fields[0].integer else {
            return .fail(.protocolGreeting, "the LDAP server's answer is not an extended response")
        }
        let diagnostic = NegotiationAction.excerpt(String(decoding: fields[2].contents, as: UTF8.self))
        guard id == 1 else {
            return .fail(.protocolGreeting, "the LDAP server sent a notice of disconnection or an unrelated message (id \(id)): \(diagnostic)")
        }
        guard resultCode == 0 else {
            return .fail(.starttlsUnavailable, "StartTLS was refused with resultCode \(resultCode)"
                         + (diagnostic.isEmpty ? "" : " (\(diagnostic))"))
        }
        guard trailing == 0 else {
            return .fail(.protocolGreeting, "the LDAP server sent more bytes after agreeing to TLS (a response injection); none of them were used")
        }
        return .startTLS
    }
}
