import NIOHTTP1

extension ResponseCollector {
    /// Most informational (1xx) responses a probe reads before the final one, as Go's net/http allows: a server
    /// streaming `103 Early Hints` (HTTP/1.1, or HTTP/2 HEADERS with `:status 103`) without end kept a core busy for
    /// the whole probe timeout.
    static let maxInformationalResponses = 5

    /// Whether `head` is informational: 1xx but `101 Switching Protocols`, which is final (NIO's decoder stops there).
    static func isInformational(_ head: HTTPResponseHead) -> Bool {
        (100..<200).contains(head.status.code) && head.status.code != 101
    }

    /// The error for an informational response past ``maxInformationalResponses``.
    static func tooManyInformationalResponses(lastStatus: UInt) -> ProbeError {
        ProbeError(.httpProtocol, "the server sent more than \(maxInformationalResponses) informational responses (1xx, the "
                   + "last \(lastStatus)) and no final response; a probe reads at most \(maxInformationalResponses) (the limit)")
    }
}
