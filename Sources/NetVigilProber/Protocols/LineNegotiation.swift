/// A line-based negotiation (SMTP, IMAP, POP3): `received` frames lines with a bounded `LineFramer` and hands
/// them to `handle` one by one, and enforces what all of them share: nothing may follow the server's go-ahead
/// for TLS (bytes read before TLS are never passed into it: an injected "response" fails the probe instead).
protocol LineNegotiation: ServiceNegotiation {
    /// Names the protocol in messages.
    static var protocolName: String { get }
    /// What every line-based machine keeps besides its stage.
    var session: LineSession { get set }
    /// The command sent first over a STARTTLS-upgraded session (a second EHLO, LOGOUT, QUIT).
    static var commandOverTLS: String { get }
    /// Makes a machine (the memberwise initializer).
    init(session: LineSession)
    /// Moves to the stage after the handshake: the greeting (implicit TLS) or the reply to `commandOverTLS`.
    mutating func enterTLS(awaitingGreeting: Bool)
    /// The actions for one complete line.
    mutating func handle(_ line: String) -> [NegotiationAction]
}

extension LineNegotiation {
    /// A machine for an implicit-TLS (`smtps`, `imaps`, `pop3s`) or a STARTTLS URL.
    init(implicitTLS: Bool) {
        self.init(session: LineSession(implicitTLS: implicitTLS))
    }

    /// Implicit TLS starts TLS at once; otherwise the server speaks first.
    func connected() -> [NegotiationAction] { session.implicitTLS ? [.startTLS] : [] }

    /// Implicit TLS waits for the greeting; an upgraded session sends `commandOverTLS`.
    mutating func tlsEstablished() -> [NegotiationAction] {
        enterTLS(awaitingGreeting: session.implicitTLS)
        return session.implicitTLS ? [] : [.line(Self.commandOverTLS)]
    }

    mutating func received(_ bytes: [UInt8]) -> [NegotiationAction] {
        guard !session.isOver else { return [] }
        let lines: [String]
        do {
            lines = try session.framer.lines(adding: bytes)
        } catch {
            session.isOver = true
            return [LineFramer.tooLong(Self.protocolName)]
        }
        var actions: [NegotiationAction] = []
        for (index, line) in lines.enumerated() {
            actions += handle(line)
            switch actions.last {
            case .startTLS?:
                if index < lines.count - 1 || session.framer.hasPending {
                    session.isOver = true
                    actions[actions.count - 1] = .fail(.protocolGreeting, "the \(Self.protocolName) server sent more bytes after "
                                                       + "agreeing to TLS (a response injection); none of them were used")
                }
                return actions
            case .finish?, .fail?:
                session.isOver = true
                return actions
            default:
                continue
            }
        }
        return actions
    }
}
