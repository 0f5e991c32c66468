/// The phases of one request, in order.
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, tls, processing, transfer
}
