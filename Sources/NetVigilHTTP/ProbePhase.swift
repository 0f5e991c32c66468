/// The phases of one request, in order (`starttls`: greeting and negotiation of STARTTLS-style schemes, before `tls`).
public enum ProbePhase: String, Sendable, Codable, CaseIterable {
    case resolve, connect, tls, processing, transfer, starttls
}
