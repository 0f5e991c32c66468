import NIOCore
import NIOTLS

/// A TLS handler (a probe's client side, or the feed's server side): moves ciphertext between the channel and an `OpenSSLConnection`, plaintext between the
/// connection and the handlers after it, and turns the connection's results into channel events.
///
/// Application writes are buffered until the handshake completed **and** `trustDecision` accepted the served chain:
/// an untrusted server never receives a request byte. Closing sends close_notify. Errors reach `errorCaught` as
/// `TLSHandlerError`: `handshakeFailed` / `closedDuringHandshake` / `untrusted` before the first application byte,
/// `postHandshakeFailed` after. Once the chain is trusted it fires `TLSUserEvent.handshakeCompleted` with the
/// ALPN protocol (as NIOSSL does), before any plaintext is read: an ALPN handler after it picks HTTP/2 or HTTP/1.1.
final class OpenSSLTLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Decides, once per handshake, whether the served chain may receive the request (nil = yes).
    typealias TrustDecision = (TLSSessionInfo) -> ProbeError?
    /// Asked after `trustDecision` accepted: a future when the decision needs more time (revocation data to
    /// download), nil when the chain may receive the request now. The handshake is not over until it answers.
    typealias DeferredTrustDecision = (TLSSessionInfo) -> EventLoopFuture<ProbeError?>?

    private enum State {
        case idle, handshaking, active, closing, closed
    }

    private var state: State = .idle
    private let connection: OpenSSLConnection
    /// Plaintext not yet encrypted: everything before the chain is trusted, later what was written since the last
    /// flush (encrypted together, see `encryptBuffered`) or what OpenSSL asked to retry.
    private var buffered: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    /// Promises of encrypted writes, completed by the next write of ciphertext to the channel.
    private var encryptedPromises: [EventLoopPromise<Void>?] = []
    /// nil on the server side, where OpenSSL itself verifies client certificates and there is nothing to report.
    private let trustDecision: TrustDecision?
    private let onHandshake: ((TLSSessionInfo) -> Void)?
    private let deferredDecision: DeferredTrustDecision?
    /// True while a deferred decision runs (the handshake is done; nothing moves until it answers).
    private var decisionPending = false
    /// The protocol ALPN chose in the completed handshake (`h2`, `http/1.1`), reported once the chain is trusted.
    private var negotiatedProtocol: String?
    /// True while the handlers after this one handle `handshakeCompleted`: their flushes wait, so what they write
    /// then (HTTP/2 preface and SETTINGS, the request) leaves in one write with the client's last flight.
    private var holdingFlushes = false

    /// Makes a client handler for one connection.
    /// - Parameter serverName: sent as SNI unless it is an IP literal.
    convenience init(configuration: TLSConfiguration, serverName: String?, trustDecision: @escaping TrustDecision,
                     onHandshake: @escaping (TLSSessionInfo) -> Void,
                     deferredDecision: DeferredTrustDecision? = nil) throws(ProbeError) {
        try self.init(connection: OpenSSLConnection(context: OpenSSLClientContext.shared(for: configuration), serverName: serverName),
                      trustDecision: trustDecision, onHandshake: onHandshake, deferredDecision: deferredDecision)
    }

    /// Makes a handler for `connection`; without `trustDecision`, application data flows as soon as the handshake is done.
    init(connection: OpenSSLConnection, trustDecision: TrustDecision? = nil, onHandshake: ((TLSSessionInfo) -> Void)? = nil,
         deferredDecision: DeferredTrustDecision? = nil) {
        self.connection = connection
        self.trustDecision = trustDecision
        self.onHandshake = onHandshake
        self.deferredDecision = deferredDecision
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let previous = state
        state = .closed
        failBuffered(ChannelError.ioOnClosedChannel)
        if previous == .handshaking {
            context.fireErrorCaught(TLSHandlerError.closedDuringHandshake)
        }
        context.fireChannelInactive()
    }

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .handshaking
        advanceHandshake(context: context)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        connection.consumeCiphertext(&buffer)
        switch state {
        case .handshaking:
            if !decisionPending { advanceHandshake(context: context) }
        case .active, .closing:
            readPlaintext(context: context)
            if state == .active, !buffered.isEmpty {
                encryptBuffered(context: context)
                writeCiphertext(context: context)
            }
        case .idle, .closed:
            break
        }
    }

    private func advanceHandshake(context: ChannelHandlerContext) {
        switch connection.doHandshake() {
        case .complete:
            // The client's last flight goes out with the request (or with close_notify when untrusted): one write.
            handshakeCompleted(context: context)
        case .wantsMore:
            writeCiphertext(context: context)
        case .failed(let failure):
            fail(.handshakeFailed(failure), context: context)
        }
    }

    private func handshakeCompleted(context: ChannelHandlerContext) {
        var refusal: ProbeError? = nil
        var later: EventLoopFuture<ProbeError?>? = nil
        if trustDecision != nil || onHandshake != nil {
            let info = connection.sessionInfo()
            onHandshake?(info)
            refusal = trustDecision?(info)
            negotiatedProtocol = info.alpn
            if refusal == nil { later = deferredDecision?(info) }
        }
        if let later {
            decisionPending = true
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            later.hop(to: context.eventLoop).whenComplete { outcome in
                let (handler, context) = bound.value
                handler.decisionPending = false
                guard handler.state == .handshaking else { return }  // closed meanwhile
                switch outcome {
                case .success(let refusal): handler.finishHandshake(refusal: refusal, context: context)
                case .failure(let error):
                    handler.finishHandshake(refusal: ProbeError(.trust, "trust decision failed: \(error)"), context: context)
                }
            }
            return
        }
        finishHandshake(refusal: refusal, context: context)
    }

    /// Refuses the chain (close_notify, nothing sent) or lets buffered plaintext go out.
    private func finishHandshake(refusal: ProbeError?, context: ChannelHandlerContext) {
        if let refusal {
            // Nothing buffered is ever encrypted: drop it, say goodbye, close.
            let error = TLSHandlerError.untrusted(refusal)
            failBuffered(error)
            state = .closing
            _ = connection.doShutdown()
            writeCiphertext(context: context)
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        state = .active
        if trustDecision != nil {
            // Writes made while handling the event (HTTP/2 preface, the request) go out with the client's last flight.
            holdingFlushes = true
            context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: negotiatedProtocol))
            holdingFlushes = false
            guard state == .active else { return }
        }
        encryptBuffered(context: context)
        writeCiphertext(context: context)
        readPlaintext(context: context)
    }

    /// Passes on all plaintext OpenSSL can decrypt now; ends the channel on close_notify or a failure.
    private func readPlaintext(context: ChannelHandlerContext) {
        var produced = false
        // A handler after this one may close the channel while it reads.
        while state == .active || state == .closing {
            switch connection.readPlaintext(allocator: context.channel.allocator) {
            case .plaintext(let buffer):
                produced = true
                context.fireChannelRead(wrapInboundOut(buffer))
            case .wantsMore:
                writeCiphertext(context: context)  // session tickets, key updates
                if produced { context.fireChannelReadComplete() }
                return
            case .closed:
                // close_notify from the server: the stream ended cleanly.
                writeCiphertext(context: context)
                if produced { context.fireChannelReadComplete() }
                state = .closing
                context.close(promise: nil)
                return
            case .failed(let failure):
                fail(.postHandshakeFailed(failure), context: context)
                return
            }
        }
        if produced { context.fireChannelReadComplete() }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking, .active:
            buffered.append((buffer, promise))
        case .closing, .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    func flush(context: ChannelHandlerContext) {
        guard state == .active, !holdingFlushes else { return }
        encryptBuffered(context: context)
        writeCiphertext(context: context)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if state == .active {
            encryptBuffered(context: context)  // written before the close: it goes out before close_notify
            state = .closing
            _ = connection.doShutdown()  // queues close_notify; a failure changes nothing, the channel closes anyway
            writeCiphertext(context: context)
        }
        context.close(mode: mode, promise: promise)
    }

    /// Encrypts buffered plaintext in order (the promises complete with the next write of ciphertext); stops where
    /// OpenSSL must read first. Consecutive small buffers (an HTTP/2 preface, SETTINGS and HEADERS; a request head
    /// and body) are copied into one record's worth first: one `SSL_write`, one record, instead of one per buffer.
    private func encryptBuffered(context: ChannelHandlerContext) {
        while !buffered.isEmpty {
            coalesceBuffered(context: context)
            let (data, promise) = buffered[0]
            switch connection.writePlaintext(data) {
            case .written:
                encryptedPromises.append(promise)
            case .wantsMore:
                return  // retried later with the same (coalesced) bytes, as OpenSSL requires
            case .failed(let failure):
                promise?.fail(TLSHandlerError.postHandshakeFailed(failure))
            }
            buffered.removeFirst()
        }
    }

    /// Replaces the leading buffers that fit in one TLS record together by one buffer holding their bytes, with a
    /// promise that completes theirs.
    private func coalesceBuffered(context: ChannelHandlerContext) {
        var total = buffered[0].0.readableBytes
        var count = 1
        while count < buffered.count, total + buffered[count].0.readableBytes <= OpenSSLConnection.maximumRecordSize {
            total += buffered[count].0.readableBytes
            count += 1
        }
        guard count > 1 else { return }
        var merged = context.channel.allocator.buffer(capacity: total)
        var promises: [EventLoopPromise<Void>] = []
        for (data, promise) in buffered[..<count] {
            merged.writeImmutableBuffer(data)
            if let promise { promises.append(promise) }
        }
        var combined: EventLoopPromise<Void>? = nil
        if promises.count == 1 {
            combined = promises[0]
        } else if !promises.isEmpty {
            let promise = context.eventLoop.makePromise(of: Void.self)
            for each in promises { promise.futureResult.cascade(to: each) }
            combined = promise
        }
        buffered.replaceSubrange(0..<count, with: [(merged, combined)])
    }

    /// Writes and flushes the ciphertext OpenSSL produced, completing the promises of what it encrypts.
    private func writeCiphertext(context: ChannelHandlerContext) {
        let promises = encryptedPromises
        encryptedPromises = []
        guard let ciphertext = connection.drainCiphertext(allocator: context.channel.allocator) else {
            for promise in promises { promise?.succeed(()) }
            return
        }
        let write = context.writeAndFlush(wrapOutboundOut(ciphertext))
        for promise in promises { if let promise { write.cascade(to: promise) } }
    }

    /// Sends the alert OpenSSL queued (if any), fails what is buffered, reports `error` and closes.
    private func fail(_ error: TLSHandlerError, context: ChannelHandlerContext) {
        var error = error
        switch error {
        case .handshakeFailed(let failure), .postHandshakeFailed(let failure):
            if let refusal = failure.clientCertificateError(requested: connection.clientCertificateRequested,
                                                            presented: connection.clientCertificatePresented) {
                error = .clientCertificateRefused(refusal)
            }
        default:
            break
        }
        writeCiphertext(context: context)
        state = .closed
        failBuffered(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failBuffered(_ error: any Error) {
        let pending = buffered
        buffered = []
        for (_, promise) in pending { promise?.fail(error) }
    }
}
