/// Counts the lines of one multi-line reply against `maxLines`.
struct ReplyLineCounter: Sendable {
    /// Most lines accepted in one reply (an EHLO, CAPA or CAPABILITY reply has tens).
    static let maxLines = 1_000

    private var count = 0

    /// Counts one line; false once the reply is longer than allowed.
    mutating func count(final: Bool) -> Bool {
        count += 1
        defer { if final { count = 0 } }
        return count <= Self.maxLines
    }

    /// The failure of a reply over the limit.
    static func tooMany(_ protocolName: String) -> NegotiationAction {
        .fail(.protocolGreeting, "the \(protocolName) server sent a reply of more than \(maxLines) lines")
    }
}
