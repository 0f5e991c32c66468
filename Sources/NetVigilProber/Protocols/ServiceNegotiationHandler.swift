import NIOCore
import NIOTLS

/// Runs one `ServiceNegotiation` on a channel: feeds it what arrives, performs what it returns, and puts the
/// TLS handler in front of itself only when the server agreed. Bytes read before that point stay with the
/// negotiation (which fails when any follow the go-ahead): none is ever passed into TLS.
///
/// The promise succeeds once the negotiation finished over a trusted TLS session; it fails with a `ProbeError`
/// (the negotiation's kind, the TLS handler's, or a `timeout` in the phase the recorder names).
final class ServiceNegotiationHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Makes the TLS handler when the server agreed; its handshake callback must be passed on.
    typealias TLSFactory = (_ onHandshake: @escaping (TLSSessionInfo) -> Void) throws -> any ChannelHandler

    private var negotiation: any ServiceNegotiation
    private let usesSTARTTLS: Bool
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<Void>
    private let recorder: HopRecorder
    private let makeTLS: TLSFactory
    private var timeoutTask: Scheduled<Void>?
    private var tlsAdded = false
    /// TLS 1.3 with a CertificateRequest: the server judges the client certificate after the client's handshake ended,
    /// and its refusal arrives as an alert on the next read. `finish` waits this long for it.
    private var verdictGrace: TimeAmount?
    /// How long a TLS 1.3 server that asked for a client certificate gets to refuse it.
    static let clientCertificateVerdictGrace = TimeAmount.milliseconds(500)
    private var done = false

    init(negotiation: any ServiceNegotiation, usesSTARTTLS: Bool, deadline: NIODeadline, promise: EventLoopPromise<Void>,
         recorder: HopRecorder, makeTLS: @escaping TLSFactory) {
        self.negotiation = negotiation
        self.usesSTARTTLS = usesSTARTTLS
        self.deadline = deadline
        self.promise = promise
        self.recorder = recorder
        self.makeTLS = makeTLS
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeoutTask = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            let phase = handler.recorder.phase.rawValue
            handler.fail(ProbeError(.timeout, "the server did not complete the exchange before the probe timeout (in phase \(phase))",
                                    phase: phase), context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeoutTask?.cancel()
        timeoutTask = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        recorder.connectEnd = .now()
        recorder.phase = usesSTARTTLS ? .starttls : .tls
        perform(negotiation.connected(), context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        perform(negotiation.received(bytes), context: context)
    }

    /// The TLS handler's go-ahead: the chain is trusted, revocation downloads included. Only now does the
    /// negotiation continue over TLS (what it writes is encrypted with the client's last flight).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event, !done {
            perform(negotiation.tlsEstablished(), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.probeError(for: error), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            perform([recorder.phase == .tls ? .fail(.tlsHandshake, "the server closed the connection during the TLS handshake")
                                             : negotiation.closed()], context: context)
        }
        context.fireChannelInactive()
    }

    private func perform(_ actions: [NegotiationAction], context: ChannelHandlerContext) {
        for action in actions {
            guard !done else { return }
            switch action {
            case .send(let bytes):
                var buffer = context.channel.allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            case .startTLS:
                startTLS(context: context)
            case .finish:
                // Runs after the TLS handler's trust decision for this handshake: a refused chain failed us first.
                // A TLS 1.3 server that asked for a client certificate may still refuse it: its alert fails us first.
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let wait = verdictGrace.map { min($0, max(.zero, deadline - .now())) } ?? .zero
                context.eventLoop.scheduleTask(in: wait) {
                    let (handler, context) = loopBound.value
                    handler.finish(context: context)
                }
            case .fail(let kind, let message):
                fail(ProbeError(kind, message, phase: kind == .timeout ? recorder.phase.rawValue : nil), context: context)
            }
        }
    }

    private func startTLS(context: ChannelHandlerContext) {
        guard !tlsAdded else { return }
        tlsAdded = true
        if usesSTARTTLS { recorder.starttlsEnd = .now() }
        recorder.phase = .tls
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        do {
            let tls = try makeTLS { info in
                let handler = loopBound.value
                if info.clientCertificateRequested, info.version == "TLSv1.3" {
                    handler.verdictGrace = Self.clientCertificateVerdictGrace
                }
                handler.recorder.tlsEnd = .now()
                handler.recorder.requestSent = .now()
                handler.recorder.phase = .processing
            }
            // In front of this handler: what arrives from now on is decrypted first, what it sends is encrypted.
            try context.pipeline.syncOperations.addHandler(tls, position: .before(self))
        } catch {
            fail(Self.probeError(for: error), context: context)
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        recorder.firstByte = .now()
        timeoutTask?.cancel()
        promise.succeed(())
        context.close(promise: nil)
    }

    private func fail(_ error: ProbeError, context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        timeoutTask?.cancel()
        promise.fail(error)
        context.close(promise: nil)
    }

    /// A TLS failure in the words of a non-HTTP probe (the HTTP mapping, but no `httpProtocol`).
    static func probeError(for error: any Error) -> ProbeError {
        if case TLSHandlerError.postHandshakeFailed(let failure)? = error as? TLSHandlerError {
            return ProbeError(.protocolGreeting, "TLS error after the handshake: \(failure)")
        }
        let mapped = ResponseCollector.probeError(for: error)
        guard mapped.kind == .httpProtocol else { return mapped }
        return ProbeError(.protocolGreeting, "connection error: \(error)")
    }
}
