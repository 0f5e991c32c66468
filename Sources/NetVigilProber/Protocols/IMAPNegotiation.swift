/// IMAP with STARTTLS (RFC 9051): `* OK` greeting, `a CAPABILITY` must list STARTTLS, `b STARTTLS` → `b OK`, TLS,
/// `c LOGOUT`. `imaps://`: TLS at once, the greeting over TLS, LOGOUT. Never logs in.
struct IMAPNegotiation: LineNegotiation {
    static let protocolName = "IMAP"

    enum Stage {
        case greeting, capability, starttls, greetingOverTLS, logout
    }

    static let commandOverTLS = "c LOGOUT"

    var session: LineSession
    var stage: Stage = .greeting
    var offersSTARTTLS = false

    init(session: LineSession) {
        self.session = session
    }

    mutating func enterTLS(awaitingGreeting: Bool) {
        stage = awaitingGreeting ? .greetingOverTLS : .logout
    }

    func closed() -> NegotiationAction {
        switch stage {
        case .logout: .finish
        case .greeting, .capability, .starttls: NegotiationAction.closedBeforeTLS(Self.protocolName)
        case .greetingOverTLS: .fail(.protocolGreeting, "the IMAP server closed the TLS connection before its greeting")
        }
    }

    mutating func handle(_ line: String) -> [NegotiationAction] {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map { $0.uppercased() }
        let tag = words.first ?? "", status = words.count > 1 ? words[1] : ""
        switch stage {
        case .greeting, .greetingOverTLS:
            guard tag == "*", status == "OK" || status == "PREAUTH" else {
                return [.fail(.protocolGreeting, "not an IMAP greeting: \"\(NegotiationAction.excerpt(line))\"")]
            }
            if stage == .greetingOverTLS {
                stage = .logout
                return [.line("c LOGOUT")]
            }
            guard status == "OK" else {
                return [.fail(.starttlsUnavailable, "the IMAP server greeted PREAUTH: a session without TLS, STARTTLS is not allowed")]
            }
            stage = .capability
            return [.line("a CAPABILITY")]
        case .capability, .starttls, .logout:
            let expected = stage == .capability ? "A" : stage == .starttls ? "B" : "C"
            guard tag == "*" || tag == expected else {
                return [.fail(.protocolGreeting, "not an IMAP response: \"\(NegotiationAction.excerpt(line))\"")]
            }
            guard session.lines.count(final: tag != "*") else { return [ReplyLineCounter.tooMany(Self.protocolName)] }
            if tag == "*" {
                if stage == .capability, status == "CAPABILITY", words.count > 2,
                   words[2].split(separator: " ").contains("STARTTLS") {
                    offersSTARTTLS = true
                }
                return []
            }
            return tagged(ok: status == "OK", line: line)
        }
    }

    /// The completion of the command of the current stage.
    private mutating func tagged(ok: Bool, line: String) -> [NegotiationAction] {
        switch stage {
        case .capability:
            guard ok else { return [.fail(.starttlsUnavailable, "CAPABILITY was answered \"\(NegotiationAction.excerpt(line))\"")] }
            guard offersSTARTTLS else {
                return [.fail(.starttlsUnavailable, "the IMAP server does not list STARTTLS in its CAPABILITY")]
            }
            stage = .starttls
            return [.line("b STARTTLS")]
        case .starttls:
            guard ok else { return [.fail(.starttlsUnavailable, "STARTTLS was answered \"\(NegotiationAction.excerpt(line))\"")] }
            return [.startTLS]
        case .logout, .greeting, .greetingOverTLS:
            return [.finish]
        }
    }
}
