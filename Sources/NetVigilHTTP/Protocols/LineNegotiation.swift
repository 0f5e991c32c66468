/// A line-based negotiation (SMTP, IMAP, POP3): `received` frames lines with a bounded `LineFramer` and hands
/// them to `handle` one by one, and enforces what all of them share: nothing may follow the server's go-ahead
/// for TLS (bytes read before TLS are never passed into it: an injected "response" fails the probe instead).
protocol LineNegotiation: ServiceNegotiation {
    /// Names the protocol in messages.
    static var protocolName: String { get }
    /// The framer of the current stage.
    var framer: LineFramer { get set }
    /// Whether a `finish` or `fail` was returned: later input is ignored.
    var isOver: Bool { get set }
    /// The actions for one complete line.
    mutating func handle(_ line: String) -> [NegotiationAction]
}

extension LineNegotiation {
    mutating func received(_ bytes: [UInt8]) -> [NegotiationAction] {
        guard !isOver else { return [] }
        let lines: [String]
        do {
            lines = try framer.lines(adding: bytes)
        } catch {
            isOver = true
            return [LineFramer.tooLong(Self.protocolName)]
        }
        var actions: [NegotiationAction] = []
        for (index, line) in lines.enumerated() {
            actions += handle(line)
            switch actions.last {
            case .startTLS?:
                if index < lines.count - 1 || framer.hasPending {
                    isOver = true
                    actions[actions.count - 1] = .fail(.protocolGreeting, "the \(Self.protocolName) server sent more bytes after "
                                                       + "agreeing to TLS (a response injection); none of them were used")
                }
                return actions
            case .finish?, .fail?:
                isOver = true
                return actions
            default:
                continue
            }
        }
        return actions
    }
}

/// Counts the lines of one multi-line reply against `maxReplyLines`.
struct ReplyLineCounter: Sendable {
    private var count = 0

    /// Counts one line; false once the reply is longer than allowed.
    mutating func count(final: Bool) -> Bool {
        count += 1
        defer { if final { count = 0 } }
        return count <= maxReplyLines
    }

    /// The failure of a reply over the limit.
    static func tooMany(_ protocolName: String) -> NegotiationAction {
        .fail(.protocolGreeting, "the \(protocolName) server sent a reply of more than \(maxReplyLines) lines")
    }
}
