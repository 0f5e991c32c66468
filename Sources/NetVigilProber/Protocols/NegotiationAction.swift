import NetVigilProbeModel

/// What a protocol negotiation asks its channel handler to do next.
enum NegotiationAction: Sendable, Equatable {
    /// Write these bytes (plaintext before TLS, inside TLS after it).
    case send([UInt8])
    /// The server agreed: put the TLS handler in front now. Nothing read so far may reach it.
    case startTLS
    /// The exchange ended well: close (with close_notify) and report success.
    case finish
    /// The exchange failed with this kind and one-line message.
    case fail(ProbeErrorKind, String)

    /// Bytes of an ASCII command line terminated by CRLF.
    static func line(_ text: String) -> NegotiationAction { .send(Array((text + "\r\n").utf8)) }

    /// A close before TLS, in the words every protocol uses.
    static func closedBeforeTLS(_ protocolName: String) -> NegotiationAction {
        .fail(.protocolGreeting, "the \(protocolName) server closed the connection before TLS")
    }

    /// A printable, bounded excerpt of what a server sent, for messages (control characters dropped, 120 characters).
    static func excerpt(_ text: String) -> String {
        let printable = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        let result = String(String.UnicodeScalarView(printable))
        return result.count > 120 ? String(result.prefix(120)) + "…" : result
    }
}
