/// The phases of one request, in order (`proxy`: connecting to a proxy and, for a tunnel, its CONNECT answer; a
/// proxied probe has no `connect` phase).
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, proxy, tls, processing, transfer
}
