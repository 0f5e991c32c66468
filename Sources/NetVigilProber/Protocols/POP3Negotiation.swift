/// POP3 with STLS (RFC 1939, RFC 2595): `+OK` greeting, CAPA must list STLS, STLS → `+OK`, TLS, QUIT. `pop3s://`:
/// TLS at once, the greeting over TLS, QUIT. Never logs in.
struct POP3Negotiation: LineNegotiation {
    static let protocolName = "POP3"

    enum Stage {
        case greeting, capa, capaList, stls, greetingOverTLS, quit
    }

    static let commandOverTLS = "QUIT"

    var session: LineSession
    var stage: Stage = .greeting
    var offersSTLS = false

    init(session: LineSession) {
        self.session = session
    }

    mutating func enterTLS(awaitingGreeting: Bool) {
        stage = awaitingGreeting ? .greetingOverTLS : .quit
    }

    func closed() -> NegotiationAction {
        switch stage {
        case .quit: .finish
        case .greeting, .capa, .capaList, .stls: NegotiationAction.closedBeforeTLS(Self.protocolName)
        case .greetingOverTLS: .fail(.protocolGreeting, "the POP3 server closed the TLS connection before its greeting")
        }
    }

    mutating func handle(_ line: String) -> [NegotiationAction] {
        let status = line.split(separator: " ", maxSplits: 1).first.map { $0.uppercased() } ?? ""
        if stage == .capaList {
            guard session.lines.count(final: line == ".") else { return [ReplyLineCounter.tooMany(Self.protocolName)] }
            if status == "STLS" { offersSTLS = true }
            guard line == "." else { return [] }
            guard offersSTLS else { return [.fail(.starttlsUnavailable, "the POP3 server does not list STLS in its CAPA reply")] }
            stage = .stls
            return [.line("STLS")]
        }
        guard status == "+OK" || status == "-ERR" else {
            return [.fail(.protocolGreeting, "not a POP3 reply: \"\(NegotiationAction.excerpt(line))\"")]
        }
        let ok = status == "+OK"
        switch stage {
        case .greeting, .greetingOverTLS:
            guard ok else { return [.fail(.protocolGreeting, "the POP3 greeting was \"\(NegotiationAction.excerpt(line))\"")] }
            if stage == .greetingOverTLS {
                stage = .quit
                return [.line("QUIT")]
            }
            stage = .capa
            return [.line("CAPA")]
        case .capa:
            guard ok else { return [.fail(.starttlsUnavailable, "CAPA was answered \"\(NegotiationAction.excerpt(line))\": STLS cannot be confirmed")] }
            stage = .capaList
            return []
        case .stls:
            guard ok else { return [.fail(.starttlsUnavailable, "STLS was answered \"\(NegotiationAction.excerpt(line))\"")] }
            return [.startTLS]
        case .quit, .capaList:
            return [.finish]
        }
    }
}
