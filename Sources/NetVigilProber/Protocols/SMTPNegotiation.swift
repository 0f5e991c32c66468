/// SMTP with STARTTLS (RFC 5321, RFC 3207) for `smtp://` and `submission://`: 220 greeting, EHLO, STARTTLS must be
/// in the EHLO reply, STARTTLS → 220, TLS, EHLO again over TLS, QUIT. `smtps://` (RFC 8314): TLS at once, the 220
/// greeting over TLS, QUIT. Nothing is ever authenticated and no mail is sent.
struct SMTPNegotiation: LineNegotiation {
    /// The EHLO argument: a name that cannot exist (RFC 6761), so no server mistakes the probe for a real client.
    static let clientName = "netvigil.invalid"
    static let protocolName = "SMTP"

    enum Stage {
        case greeting, ehlo, starttls, greetingOverTLS, ehloOverTLS, quit
    }

    static let commandOverTLS = "EHLO \(clientName)"

    var session: LineSession
    var stage: Stage = .greeting
    var offersSTARTTLS = false

    init(session: LineSession) {
        self.session = session
    }

    mutating func enterTLS(awaitingGreeting: Bool) {
        stage = awaitingGreeting ? .greetingOverTLS : .ehloOverTLS
    }

    func closed() -> NegotiationAction {
        switch stage {
        case .quit: .finish
        case .greeting, .ehlo, .starttls: NegotiationAction.closedBeforeTLS(Self.protocolName)
        case .greetingOverTLS, .ehloOverTLS: .fail(.protocolGreeting, "the SMTP server closed the TLS connection before its reply")
        }
    }

    mutating func handle(_ line: String) -> [NegotiationAction] {
        guard let reply = Reply(line) else {
            return [.fail(.protocolGreeting, "not an SMTP reply: \"\(NegotiationAction.excerpt(line))\"")]
        }
        guard session.lines.count(final: reply.isFinal) else { return [ReplyLineCounter.tooMany(Self.protocolName)] }
        if stage == .ehlo, reply.code == 250, reply.keyword == "STARTTLS" { offersSTARTTLS = true }
        guard reply.isFinal else { return [] }
        switch stage {
        case .greeting, .greetingOverTLS:
            guard reply.code == 220 else {
                return [.fail(.protocolGreeting, "the SMTP greeting was \"\(NegotiationAction.excerpt(line))\", not 220")]
            }
            if stage == .greetingOverTLS {
                stage = .quit
                return [.line("QUIT")]
            }
            stage = .ehlo
            return [.line("EHLO \(Self.clientName)")]
        case .ehlo:
            guard reply.code == 250 else {
                return [.fail(.starttlsUnavailable, "EHLO was answered \"\(NegotiationAction.excerpt(line))\": no STARTTLS without EHLO")]
            }
            guard offersSTARTTLS else {
                return [.fail(.starttlsUnavailable, "the SMTP server does not offer STARTTLS in its EHLO reply")]
            }
            stage = .starttls
            return [.line("STARTTLS")]
        case .starttls:
            guard reply.code == 220 else {
                return [.fail(.starttlsUnavailable, "STARTTLS was answered \"\(NegotiationAction.excerpt(line))\"")]
            }
            return [.startTLS]
        case .ehloOverTLS:
            guard reply.code == 250 else {
                return [.fail(.protocolGreeting, "EHLO over TLS was answered \"\(NegotiationAction.excerpt(line))\"")]
            }
            stage = .quit
            return [.line("QUIT")]
        case .quit:
            return [.finish]
        }
    }

    /// One reply line: `CODE[ -]text`.
    private struct Reply {
        var code: Int
        var isFinal: Bool
        /// The first word of the text, upper-cased (an EHLO keyword).
        var keyword: Substring

        init?(_ line: String) {
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, bytes[0..<3].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  bytes.count == 3 || bytes[3] == UInt8(ascii: " ") || bytes[3] == UInt8(ascii: "-") else { return nil }
            code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) ?? 0
            isFinal = bytes.count == 3 || bytes[3] == UInt8(ascii: " ")
            let text = line.dropFirst(4)
            keyword = text.split(separator: " ", maxSplits: 1).first.map { Substring($0.uppercased()) } ?? ""
        }
    }
}
