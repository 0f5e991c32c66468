import COpenSSL
import NIOCore
import NetVigilTrust

/// A TLS client over OpenSSL memory BIOs, in the shape of swift-nio-ssl 1.x.
///
/// Ciphertext from the network goes into the read BIO; what OpenSSL writes into the write BIO goes to the network.
/// Application writes are buffered until the handshake completed **and** `trustDecision` accepted the served chain:
/// an untrusted server never receives a request byte. Closing sends close_notify.
final class OpenSSLTLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Decides, once per handshake, whether the served chain may receive the request (nil = yes).
    typealias TrustDecision = (TLSSessionInfo) -> ProbeError?

    private enum State {
        case idle, handshaking, active, closing, closed
    }

    private var state: State = .idle
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private var buffered: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private let trustDecision: TrustDecision
    private let onHandshake: (TLSSessionInfo) -> Void

    /// Makes a handler for one connection.
    /// - Parameter serverName: sent as SNI unless it is an IP literal.
    init(configuration: TLSConfiguration, serverName: String?, trustDecision: @escaping TrustDecision,
         onHandshake: @escaping (TLSSessionInfo) -> Void) throws(ProbeError) {
        let context = try OpenSSLClientContext.shared(for: configuration)
        guard let ssl = SSL_new(context.pointer) else {
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create SSL")
        }
        guard let readBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create a memory BIO")
        }
        guard let writeBIO = BIO_new(BIO_s_mem()) else {
            BIO_free(readBIO)
            SSL_free(ssl)
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create a memory BIO")
        }
        _ = cossl_BIO_set_mem_eof_return(readBIO, -1)
        _ = cossl_BIO_set_mem_eof_return(writeBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        SSL_set_connect_state(ssl)
        if let serverName, !serverName.isEmpty, !IPLiteral.isIP(serverName) {
            _ = cossl_SSL_set_tlsext_host_name(ssl, serverName)
        }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        self.trustDecision = trustDecision
        self.onHandshake = onHandshake
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
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
        buffer.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress, bytes.count > 0 {
                _ = BIO_write(readBIO, base, Int32(bytes.count))
            }
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        switch state {
        case .handshaking:
            advanceHandshake(context: context)
        case .active, .closing:
            readApplicationData(context: context)
        case .idle, .closed:
            break
        }
    }

    private func advanceHandshake(context: ChannelHandlerContext) {
        cossl_clear_errors()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            // The client's last flight goes out with the request (or with close_notify when untrusted): one write.
            handshakeCompleted(context: context)
            return
        }
        flushCiphertext(context: context, promise: nil)
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
        failHandshake(context: context, error: handshakeError())
    }

    private func handshakeError() -> TLSHandlerError {
        let alertCode = cossl_ERR_peek_last_alert()
        var buffer = [CChar](repeating: 0, count: 256)
        cossl_last_error_string(&buffer, buffer.count)
        let detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var alert: String? = nil
        if alertCode >= 0, let text = SSL_alert_desc_string_long(alertCode) {
            alert = String(cString: text).lowercased()
        }
        return .handshakeFailed(alert: alert, detail: detail.isEmpty ? "handshake failed" : detail)
    }

    private func failHandshake(context: ChannelHandlerContext, error: TLSHandlerError) {
        state = .closed
        failBuffered(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func handshakeCompleted(context: ChannelHandlerContext) {
        let info = sessionInfo()
        onHandshake(info)
        if let refusal = trustDecision(info) {
            // Nothing buffered is ever encrypted: drop it, say goodbye, close.
            let error = TLSHandlerError.untrusted(refusal)
            failBuffered(error)
            state = .closing
            _ = SSL_shutdown(ssl)
            flushCiphertext(context: context, promise: nil)
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        state = .active
        let pending = buffered
        buffered = []
        for (data, promise) in pending { encrypt(data, promise: promise) }
        flushCiphertext(context: context, promise: nil)
        readApplicationData(context: context)
    }

    private func sessionInfo() -> TLSSessionInfo {
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? "unknown"
        var alpnPointer: UnsafePointer<UInt8>? = nil
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnPointer, &alpnLength)
        var alpn: String? = nil
        if let alpnPointer, alpnLength > 0 {
            alpn = String(decoding: UnsafeBufferPointer(start: alpnPointer, count: Int(alpnLength)), as: UTF8.self)
        }
        var chain: [Certificate] = []
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<cossl_sk_X509_num(stack) {
                if let x509 = cossl_sk_X509_value(stack, index), let certificate = Certificate(retainingX509: x509) {
                    chain.append(certificate)
                }
            }
        }
        return TLSSessionInfo(version: version, cipher: cipher, alpn: alpn, servedChain: chain)
    }

    private func readApplicationData(context: ChannelHandlerContext) {
        var produced = false
        while true {
            cossl_clear_errors()
            // Plaintext never exceeds what is decrypted already plus the ciphertext still in the read BIO.
            let available = Int(SSL_pending(ssl)) + Int(cossl_BIO_pending(readBIO))
            let capacity = max(64, min(16_384, available))
            var buffer = context.channel.allocator.buffer(capacity: capacity)
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { bytes in
                let result = SSL_read(ssl, bytes.baseAddress, Int32(min(bytes.count, 16_384)))
                return result > 0 ? Int(result) : 0
            }
            if count > 0 {
                produced = true
                context.fireChannelRead(wrapInboundOut(buffer))
                continue
            }
            let error = SSL_get_error(ssl, 0)
            flushCiphertext(context: context, promise: nil)  // session tickets, key updates
            if error == SSL_ERROR_ZERO_RETURN {
                // close_notify from the server: the stream ended cleanly.
                if produced { context.fireChannelReadComplete() }
                state = .closing
                context.close(promise: nil)
                return
            }
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_NONE { break }
            let failure = handshakeError()
            if case .handshakeFailed(_, let detail) = failure {
                context.fireErrorCaught(TLSHandlerError.protocolFailure(detail))
            }
            context.close(promise: nil)
            return
        }
        if produced { context.fireChannelReadComplete() }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking:
            buffered.append((buffer, promise))
        case .active:
            encrypt(buffer, promise: promise)
        case .closing, .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if state == .active { flushCiphertext(context: context, promise: nil) }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if state == .active {
            state = .closing
            _ = SSL_shutdown(ssl)  // queues close_notify
            flushCiphertext(context: context, promise: nil)
        }
        context.close(mode: mode, promise: promise)
    }

    /// Encrypts into the write BIO (never short with a memory BIO); the promise completes with the next flush.
    private func encrypt(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>?) {
        var written = true
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            written = SSL_write(ssl, base, Int32(bytes.count)) == Int32(bytes.count)
        }
        if written { pendingPromises.append(promise) } else { promise?.fail(TLSHandlerError.protocolFailure("SSL_write failed")) }
    }

    private var pendingPromises: [EventLoopPromise<Void>?] = []

    private func flushCiphertext(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let pending = cossl_BIO_pending(writeBIO)
        let promises = pendingPromises
        pendingPromises = []
        guard pending > 0 else {
            for item in promises { item?.succeed(()) }
            promise?.succeed(())
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: Int(pending))
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(pending)) { bytes in
            Int(max(0, BIO_read(writeBIO, bytes.baseAddress, Int32(pending))))
        }
        let write = context.writeAndFlush(wrapOutboundOut(buffer))
        for item in promises { if let item { write.cascade(to: item) } }
        if let promise { write.cascade(to: promise) }
    }

    private func failBuffered(_ error: any Error) {
        let pending = buffered
        buffered = []
        for (_, promise) in pending { promise?.fail(error) }
    }
}
