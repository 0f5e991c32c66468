import Foundation
import NIOCore
import NetVigilTrust

/// What one connection (one hop) observed; written and read on the channel's event loop only, read by the
/// prober after the response promise completed (the promise orders the accesses).
final class HopRecorder: @unchecked Sendable {
    var phase: ProbePhase = .connect
    var connectStart: NIODeadline = .now()
    var connectEnd: NIODeadline?
    /// Whether the hop went through a proxy (its connect time is the `proxy` phase).
    var proxied = false
    /// When the proxy answered CONNECT (2xx or not).
    var proxyAnswered: NIODeadline?
    /// End of a STARTTLS-style negotiation (the server agreed to TLS).
    var starttlsEnd: NIODeadline?
    var tlsEnd: NIODeadline?
    var requestSent: NIODeadline?
    var firstByte: NIODeadline?
    var end: NIODeadline?
    var tls: TLSSessionInfo?
    var evaluation: TrustEvaluation?
    /// CRL downloads after the handshake (the `revocation` phase).
    var revocationStart: NIODeadline?
    var revocationEnd: NIODeadline?
    /// Set by the trust decision when CRLs must be downloaded before the verdict is final.
    var pendingRevocation: PendingRevocation?

    /// A trusted evaluation waiting for CRL downloads.
    struct PendingRevocation {
        var evaluator: ServerTrustEvaluator
        var evaluation: TrustEvaluation
        /// The first check, naming what to download.
        var first: RevocationOutcome
        var stapledOCSP: Data?
    }
}
