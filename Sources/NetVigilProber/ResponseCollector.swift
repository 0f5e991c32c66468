import NIOCore
import NIOHTTP1
import NIOTLS

/// Writes the request once the channel is active (the TLS handler holds it until the chain is trusted) and
/// collects the response, enforcing the body limit and the probe deadline.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// When the request is written.
    enum Start {
        /// When the connection is active (HTTP/1.1; TLS holds it until the chain is trusted).
        case whenActive
        /// When the TLS handler reports the trusted handshake with the ALPN protocol: `negotiation` adds that
        /// protocol's handlers before the collector, then the request is written. The connection's events are
        /// recorded as usual.
        case afterNegotiation
    }

    /// Adds the handlers of the negotiated protocol (`h2`, `http/1.1` or nil) before `collector` (passed in, so the
    /// closure holds no reference to it); a thrown error fails the probe with nothing written. Used with
    /// `.afterNegotiation` (see `Prober.addNegotiatedHTTP`).
    typealias Negotiation = (_ negotiatedProtocol: String?, _ pipeline: ChannelPipeline.SynchronousOperations,
                             _ collector: ResponseCollector) throws -> Void

    private let head: HTTPRequestHead
    private let body: [UInt8]
    private let maxBodyBytes: Int
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<HTTPResponse>
    private let recorder: HopRecorder
    private let usesTLS: Bool
    private let start: Start
    private var response: HTTPResponse?
    private var timeoutTask: Scheduled<Void>?
    private var done = false
    /// Informational (1xx) heads read so far; past ``maxInformationalResponses`` the probe fails.
    private var informationalResponses = 0
    var negotiation: Negotiation?
    private var negotiated = false

    init(head: HTTPRequestHead, body: [UInt8], maxBodyBytes: Int, deadline: NIODeadline, usesTLS: Bool,
         promise: EventLoopPromise<HTTPResponse>, recorder: HopRecorder, start: Start = .whenActive) {
        self.head = head
        self.body = body
        self.maxBodyBytes = maxBodyBytes
        self.deadline = deadline
        self.usesTLS = usesTLS
        self.promise = promise
        self.recorder = recorder
        self.start = start
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeoutTask = context.eventLoop.scheduleTask(deadline: deadline) {
            let (collector, context) = loopBound.value
            collector.fail(ProbeError(.timeout, "no complete response before the probe timeout (in phase \(collector.recorder.phase.rawValue))",
                                      phase: collector.recorder.phase.rawValue), context: context)
        }
    }

    /// The channel is gone (also when it never connected): drop the deadline task, which holds this handler and its
    /// context, instead of keeping both alive until the deadline.
    func handlerRemoved(context: ChannelHandlerContext) {
        timeoutTask?.cancel()
        timeoutTask = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        recorder.connectEnd = .now()
        recorder.phase = usesTLS ? .tls : .processing
        if !usesTLS { recorder.requestSent = .now() }
        if start != .afterNegotiation { sendRequest(context: context) }
        context.fireChannelActive()
    }

    /// Writes the request (head, body, end) and flushes it.
    func sendRequest(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The TLS handler fires `handshakeCompleted` once the chain is trusted and before it reads any plaintext, so the
    /// handlers added here see every byte the server sent, also what came in the read that ended the handshake.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard start == .afterNegotiation, !negotiated, let event = event as? TLSUserEvent,
              case .handshakeCompleted(let negotiatedProtocol) = event else {
            return context.fireUserInboundEventTriggered(event)
        }
        negotiated = true
        do {
            try negotiation?(negotiatedProtocol, context.pipeline.syncOperations, self)
        } catch {
            return fail(Self.probeError(for: error), context: context)
        }
        sendRequest(context: context)
    }

    /// Called by the TLS handler's handshake callback (same event loop).
    func handshakeCompleted() {
        recorder.tlsEnd = .now()
        recorder.requestSent = .now()
        recorder.phase = .processing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if Self.isInformational(head) {
                // Not the response: its time, status and headers are the final head's.
                informationalResponses += 1
                if informationalResponses > Self.maxInformationalResponses {
                    fail(Self.tooManyInformationalResponses(lastStatus: head.status.code), context: context)
                }
                return
            }
            recorder.firstByte = .now()
            recorder.phase = .transfer
            let version = head.version.major >= 2 ? "HTTP/\(head.version.major)" : "HTTP/\(head.version.major).\(head.version.minor)"
            response = HTTPResponse(version: version, status: Int(head.status.code),
                                    headers: head.headers)
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodyBytes {
                fail(ProbeError(.bodyTooLarge, "Content-Length \(length) exceeds the \(maxBodyBytes)-byte limit"), context: context)
            }
        case .body(let buffer):
            guard response != nil else { return }
            if response!.body.count + buffer.readableBytes > maxBodyBytes {
                fail(ProbeError(.bodyTooLarge, "body exceeds the \(maxBodyBytes)-byte limit"), context: context)
                return
            }
            response!.body += buffer.readableBytesView
        case .end:
            recorder.end = .now()
            guard let response else { return }
            if let refusal = recorder.tls?.clientCertificateError(for: response) {
                fail(refusal, context: context)
                return
            }
            done = true
            timeoutTask?.cancel()
            promise.succeed(response)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.probeError(for: error), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ProbeError(.httpProtocol, recorder.phase == .tls
                        ? "the server closed the connection during the TLS handshake"
                        : "the server closed the connection before the response was complete"), context: context)
        context.fireChannelInactive()
    }

    private func fail(_ error: ProbeError, context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        recorder.end = .now()
        timeoutTask?.cancel()
        promise.fail(error)
        context.close(promise: nil)
    }

    static func probeError(for error: any Error) -> ProbeError {
        switch error {
        case let error as ProbeError:
            return error
        case let error as TLSHandlerError:
            switch error {
            case .handshakeFailed(let failure):
                return ProbeError(.tlsHandshake, "TLS handshake failed: \(failure.reason ?? "handshake failed")", alert: failure.alert)
            case .closedDuringHandshake:
                return ProbeError(.tlsHandshake, "the server closed the connection during the TLS handshake")
            case .untrusted(let error), .clientCertificateRefused(let error):
                return error
            case .postHandshakeFailed(let failure):
                return ProbeError(.httpProtocol, "TLS error after the handshake: \(failure)")
            }
        case let error as HTTPParserError:
            return ProbeError(.httpProtocol, "invalid HTTP response: \(error)")
        default:
            return http2ProbeError(for: error) ?? ProbeError(.httpProtocol, "connection error: \(error)")
        }
    }
}
