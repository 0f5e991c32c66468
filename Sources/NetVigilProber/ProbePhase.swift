/// The phases of one request, in order (`proxy`: connecting to a proxy and, for a tunnel, its CONNECT answer; a
/// proxied probe has no `connect` phase; `revocation`: downloading CRLs after the handshake, before the request;
/// `starttls`: greeting and negotiation of STARTTLS-style schemes, which runs before `tls` but is listed last so the
/// HTTP phases keep their places).
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, proxy, tls, revocation, processing, transfer, starttls
}
