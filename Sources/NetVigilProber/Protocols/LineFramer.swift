/// Splits a byte stream into CRLF- (or LF-) terminated lines, holding at most `maxLineBytes` of an unfinished
/// line: a peer that never ends its line costs 8 KiB, not memory without bound.
struct LineFramer: Sendable {
    /// The longest line accepted, terminator excluded.
    static let maxLineBytes = 8 * 1024

    /// A line longer than `maxLineBytes`.
    struct LineTooLong: Error {}

    private var pending: [UInt8] = []

    /// Whether bytes after the last complete line are waiting.
    var hasPending: Bool { !pending.isEmpty }

    /// The complete lines in what was received so far (terminators removed, decoded as UTF-8 with replacement).
    mutating func lines(adding bytes: [UInt8]) throws(LineTooLong) -> [String] {
        var lines: [String] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            pending += bytes[start..<index]
            guard pending.count <= Self.maxLineBytes + 1 else { throw LineTooLong() }
            if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
            lines.append(String(decoding: pending, as: UTF8.self))
            pending = []
            start = index + 1
        }
        pending += bytes[start...]
        guard pending.count <= Self.maxLineBytes + 1 else { throw LineTooLong() }
        return lines
    }
}

extension LineFramer {
    /// The failure of a line over the limit.
    static func tooLong(_ protocolName: String) -> NegotiationAction {
        .fail(.protocolGreeting, "the \(protocolName) server sent a line longer than \(maxLineBytes) bytes")
    }
}
