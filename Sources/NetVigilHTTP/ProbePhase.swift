/// The phases of one request, in order (`proxy`: connecting to a proxy and, for a tunnel, its CONNECT answer; a
/// proxied probe has no `connect` phase; `revocation`: downloading CRLs after the handshake, before the request).
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, proxy, tls, revocation, processing, transfer
}
