/// The phases of one request, in order (`proxy`: connecting to a proxy and, for a tunnel, its CONNECT answer; a
/// proxied probe has no `connect` phase. `starttls`: greeting and negotiation of STARTTLS-style schemes, which runs
/// before `tls` but is listed last so the HTTP phases keep their places).
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, proxy, tls, processing, transfer, starttls
}
