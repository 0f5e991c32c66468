import NIOCore

/// Opens a CONNECT tunnel through an HTTP proxy, then gets out of the way (swift-nio style): first in the pipeline,
/// it holds `channelActive` and every write from the handlers after it until the proxy answered 2xx, then passes
/// `channelActive` on (the TLS handler starts its handshake with the origin inside the tunnel), forwards the held
/// writes and removes itself. A refusal, a malformed or oversized answer, no answer within `answerTimeout` or a
/// close before the answer reach `errorCaught` as a `ProbeError` (kind `proxy`, or `timeout` in phase `proxy`);
/// nothing held is ever sent then.
final class ProxyConnectHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case idle, awaitingAnswer, established, failed
    }

    private var state: State = .idle
    private var parser = ProxyConnectParser()
    private var heldWrites: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var heldFlush = false
    private let request: [UInt8]
    private let proxyName: String
    private let answerTimeout: TimeAmount
    private let recorder: HopRecorder?
    private var timeoutTask: Scheduled<Void>?

    /// A handler tunnelling to `host`:`port` through `proxy`.
    init(host: String, port: Int, proxy: ProxyConfiguration, answerTimeout: TimeAmount, recorder: HopRecorder? = nil) {
        request = Self.connectRequest(host: host, port: port, authorization: proxy.credentials?.authorization)
        proxyName = proxy.url
        self.answerTimeout = answerTimeout
        self.recorder = recorder
    }

    /// `CONNECT host:port HTTP/1.1` with `Host` and, when configured, `Proxy-Authorization`.
    static func connectRequest(host: String, port: Int, authorization: String?) -> [UInt8] {
        let authority = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization { text += "Proxy-Authorization: \(authorization)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeoutTask?.cancel()
        timeoutTask = nil
        failHeld(ChannelError.ioOnClosedChannel)
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)  // channelActive goes on once the tunnel is open
    }

    func channelInactive(context: ChannelHandlerContext) {
        if state == .awaitingAnswer {
            fail(ProbeError(.proxy, "the proxy \(proxyName) closed the connection without answering CONNECT"), context: context)
        }
        context.fireChannelInactive()
    }

    private func sendRequest(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .awaitingAnswer
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: request)), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let seconds = Double(answerTimeout.nanoseconds) / 1e9
        timeoutTask = context.eventLoop.scheduleTask(in: answerTimeout) {
            let (handler, context) = loopBound.value
            guard handler.state == .awaitingAnswer else { return }
            handler.fail(ProbeError(.timeout, "the proxy \(handler.proxyName) did not answer CONNECT within \(seconds.formatted()) s",
                                    phase: ProbePhase.proxy.rawValue), context: context)
        }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .established:
            context.fireChannelRead(data)
        case .awaitingAnswer:
            let buffer = unwrapInboundIn(data)
            switch parser.consume(buffer.readableBytesView) {
            case .needMore:
                break
            case .established(_, let leftover):
                establish(leftover: leftover, context: context)
            case .refused(let status, let reason):
                fail(ProbeError(.proxy, "the proxy \(proxyName) answered CONNECT with \(status)"
                                + (reason.isEmpty ? "" : " \(reason)") + Self.hint(status)), context: context)
            case .invalid(let problem):
                fail(ProbeError(.proxy, "\(problem) (proxy \(proxyName))"), context: context)
            }
        case .idle, .failed:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if state == .established { context.fireChannelReadComplete() }
    }

    private func establish(leftover: [UInt8], context: ChannelHandlerContext) {
        timeoutTask?.cancel()
        timeoutTask = nil
        state = .established
        recorder?.proxyAnswered = .now()
        // Held writes first (they were issued first), then the handlers after this one learn the channel is active.
        let held = heldWrites
        heldWrites = []
        for (data, promise) in held { context.write(data, promise: promise) }
        if heldFlush || !held.isEmpty { context.flush() }
        context.fireChannelActive()
        if !leftover.isEmpty {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: leftover)))
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .established: context.write(data, promise: promise)
        case .idle, .awaitingAnswer: heldWrites.append((data, promise))
        case .failed: promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if state == .established { context.flush() } else { heldFlush = true }
    }

    // MARK: Failure

    private func fail(_ error: ProbeError, context: ChannelHandlerContext) {
        guard state != .failed else { return }
        state = .failed
        if recorder?.proxyAnswered == nil { recorder?.proxyAnswered = .now() }
        timeoutTask?.cancel()
        timeoutTask = nil
        failHeld(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failHeld(_ error: any Error) {
        while !heldWrites.isEmpty { heldWrites.removeFirst().1?.fail(error) }
    }

    /// What the usual refusals mean.
    private static func hint(_ status: Int) -> String {
        switch status {
        case 407: " (proxy authentication required: check the proxy user and password file)"
        case 403: " (the proxy does not allow a tunnel to this host or port)"
        case 502, 503, 504: " (the proxy could not reach the origin)"
        default: ""
        }
    }
}
