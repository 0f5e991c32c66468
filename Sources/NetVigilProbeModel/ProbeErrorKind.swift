/// Why a probe failed, as a stable class: the raw values are what results store (`error_kind`) and show.
public enum ProbeErrorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request could not be built (bad URL, invalid JSON, ...); nothing was sent.
    case invalidRequest
    /// The host name did not resolve.
    case dns
    /// The server refused the TCP connection.
    case connectRefused
    /// The TCP connection was not established within the connect timeout.
    case connectTimeout
    /// Any other connect failure (unreachable network, reset, ...).
    case connect
    /// The TLS handshake failed; `alert` names the TLS alert when one was received or sent.
    case tlsHandshake
    /// The served chain was not trusted under the policy; `verdict` is the trust verdict. No request byte was sent.
    case trust
    /// The response was not valid HTTP/1.x or HTTP/2 (a protocol error, a reset stream, a GOAWAY before the
    /// response), or the connection closed before it was complete.
    case httpProtocol
    /// The status code is not acceptable.
    case status
    /// The content type is not acceptable.
    case contentType
    /// An expectation (JSON path, body text, response time, certificate validity) failed.
    case expectation
    /// The body exceeded the size limit.
    case bodyTooLarge
    /// The probe timed out; `phase` says in which phase.
    case timeout
    /// The agent itself ran out of file descriptors or memory (EMFILE, ENFILE, ENOMEM): not the target's fault;
    /// recorded as skipped and counted, never a `target_down`.
    case resourceExhausted
    /// An https:// URL redirected to http:// and the target does not allow downgrades; the http:// URL was
    /// not contacted. A trust problem: credentials would have gone out in clear text.
    case insecureRedirect
    /// The server asked for a client certificate (mTLS) and refused the connection without one; `alert` names the
    /// TLS alert it sent (`certificate required`, `handshake failure`) when it sent one.
    case clientCertificateRequired
    /// The server refused the client certificate presented; `alert` names its TLS alert (`unknown ca`, ...).
    case clientCertificateRejected
    /// The configured proxy refused or failed the request: a non-2xx answer to CONNECT (407, 403, 502, ...), a 407
    /// to an absolute-form request, or a malformed answer. The message names the status; nothing went direct.
    case proxy
    /// The target requires HTTP/2 (`http_version: "2"`) and the server did not select `h2` in ALPN (or the URL is
    /// http://); the chain was judged, no request was sent.
    case http2Unavailable
    /// A STARTTLS-style target (smtp, submission, imap, pop3, ldap, postgres) did not offer or refused the upgrade
    /// to TLS (no STARTTLS/STLS capability, 454, an LDAP error, PostgreSQL's `N`): never a plaintext success.
    case starttlsUnavailable
    /// The server's greeting or plaintext negotiation was not its protocol: garbage, a line over 8 KiB, too many
    /// reply lines, an error reply, bytes sent after the go-ahead for TLS, or a close before TLS.
    case protocolGreeting
    /// netvigil stopped while the probe ran: it was cancelled, and is stored as skipped (never a failure, no alert).
    case cancelled

    /// Whether losing the network mid-probe can cause this failure (name resolution, connection, TLS
    /// handshake, a cut-off response, a timeout). Verdicts on what the server sent (trust, status, content
    /// type, expectations, size) are never blamed on the network.
    public var mayBeNetworkLoss: Bool {
        switch self {
        case .dns, .connectRefused, .connectTimeout, .connect, .tlsHandshake, .httpProtocol, .timeout: true
        case .invalidRequest, .trust, .status, .contentType, .expectation, .bodyTooLarge, .resourceExhausted,
             .insecureRedirect, .clientCertificateRequired, .clientCertificateRejected, .proxy, .starttlsUnavailable,
             .protocolGreeting, .http2Unavailable, .cancelled: false
        }
    }
}
