import NIOCore
import NetVigilTrust

/// What one connection (one hop) observed; written and read on the channel's event loop only, read by the
/// prober after the response promise completed (the promise orders the accesses).
final class HopRecorder: @unchecked Sendable {
    var phase: ProbePhase = .connect
    var connectStart: NIODeadline = .now()
    var connectEnd: NIODeadline?
    /// End of a STARTTLS-style negotiation (the server agreed to TLS).
    var starttlsEnd: NIODeadline?
    var tlsEnd: NIODeadline?
    var requestSent: NIODeadline?
    var firstByte: NIODeadline?
    var end: NIODeadline?
    var tls: TLSSessionInfo?
    var evaluation: TrustEvaluation?
}
