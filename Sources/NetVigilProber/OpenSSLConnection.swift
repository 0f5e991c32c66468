import COpenSSL
import Foundation
import NIOCore
import NetVigilTrust

/// One OpenSSL connection (a probe's client side, or the feed's server side) over two memory BIOs, in the shape of swift-nio-ssl 1.x's `SSLConnection`: it
/// owns the `SSL` and its BIOs and knows nothing of channels.
///
/// Ciphertext from the network goes in with `consumeCiphertext(_:)`; after every operation, `drainCiphertext(allocator:)`
/// returns what OpenSSL wants sent. Every operation clears the thread's error queue first and answers with an enum
/// made from `SSL_get_error` of that operation's own return value. Not thread-safe: one event loop uses it.
final class OpenSSLConnection {
    /// The largest TLS record's plaintext.
    static let maximumRecordSize = 16_384

    /// How a handshake step ended.
    enum HandshakeResult {
        /// The handshake completed.
        case complete
        /// OpenSSL needs more ciphertext from the peer (or has ciphertext to send first).
        case wantsMore
        /// The handshake failed.
        case failed(OpenSSLFailure)
    }

    /// How a read of plaintext ended.
    enum ReadResult {
        /// Decrypted application data (never empty).
        case plaintext(ByteBuffer)
        /// Nothing more to decrypt until more ciphertext arrives.
        case wantsMore
        /// The peer sent close_notify: the stream ended cleanly.
        case closed
        /// The connection failed (bad record, fatal alert).
        case failed(OpenSSLFailure)
    }

    /// How a write of plaintext ended.
    enum WriteResult {
        /// All bytes were encrypted into the write BIO.
        case written
        /// OpenSSL must read first (a renegotiation is under way); write the same bytes again after the next read.
        case wantsMore
        /// The connection failed.
        case failed(OpenSSLFailure)
    }

    /// How a shutdown step ended.
    enum ShutdownResult {
        /// close_notify is queued; the peer's has not arrived.
        case sent
        /// Both close_notify alerts went their ways.
        case complete
        /// The shutdown failed (e.g. before the handshake completed).
        case failed(OpenSSLFailure)
    }

    private let ssl: OpaquePointer
    /// Ciphertext from the network, read by OpenSSL.
    private let networkInput: OpaquePointer
    /// Ciphertext written by OpenSSL, for the network.
    private let networkOutput: OpaquePointer

    /// A client connection on `context`; `serverName` goes out as SNI unless it is empty or an IP literal.
    convenience init(context: OpenSSLClientContext, serverName: String?) throws(ProbeError) {
        try self.init(contextPointer: context.pointer, isServer: false)
        if let serverName, !serverName.isEmpty, !IPLiteral.isIP(serverName) {
            _ = cossl_SSL_set_tlsext_host_name(ssl, serverName)
        }
        _ = cossl_SSL_request_ocsp_staple(ssl)  // status_request: revocation checks use a stapled response
    }

    /// A server connection on `serverContext` (it answers a client's handshake).
    convenience init(serverContext: OpenSSLServerContext) throws(ProbeError) {
        try self.init(contextPointer: serverContext.pointer, isServer: true)
    }

    private init(contextPointer: OpaquePointer, isServer: Bool) throws(ProbeError) {
        guard let ssl = SSL_new(contextPointer) else {
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create SSL")
        }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create a memory BIO")
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            BIO_free(input)
            SSL_free(ssl)
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create a memory BIO")
        }
        // An empty memory BIO means "retry later" (WANT_READ), never end of file.
        _ = cossl_BIO_set_mem_eof_return(input, -1)
        _ = cossl_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        if isServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        self.ssl = ssl
        self.networkInput = input
        self.networkOutput = output
    }

    /// Whether the server sent a CertificateRequest so far.
    var clientCertificateRequested: Bool { cossl_SSL_certificate_requested(ssl) == 1 }

    /// Whether this connection has a client certificate to present.
    var clientCertificatePresented: Bool { SSL_get_certificate(ssl) != nil }

    deinit {
        SSL_free(ssl)  // frees both BIOs
    }

    // MARK: Ciphertext

    /// Hands ciphertext from the network to OpenSSL (a memory BIO takes all of it) and consumes `buffer`.
    func consumeCiphertext(_ buffer: inout ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress, bytes.count > 0 {
                _ = BIO_write(networkInput, base, Int32(bytes.count))
            }
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
    }

    /// The ciphertext OpenSSL has produced since the last call, nil when there is none.
    func drainCiphertext(allocator: ByteBufferAllocator) -> ByteBuffer? {
        let pending = Int(cossl_BIO_pending(networkOutput))
        guard pending > 0 else { return nil }
        var buffer = allocator.buffer(capacity: pending)
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { bytes in
            Int(max(0, BIO_read(networkOutput, bytes.baseAddress, Int32(pending))))
        }
        return buffer
    }

    // MARK: Operations

    /// Runs the handshake as far as the ciphertext received so far allows.
    func doHandshake() -> HandshakeResult {
        cossl_clear_errors()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .complete }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return .wantsMore }
        return .failed(.collect(code: code))
    }

    /// Decrypts at most one record's worth of application data into a new buffer from `allocator`.
    func readPlaintext(allocator: ByteBufferAllocator) -> ReadResult {
        cossl_clear_errors()
        // Plaintext never exceeds what is decrypted already plus the ciphertext still in the input BIO.
        let available = Int(SSL_pending(ssl)) + Int(cossl_BIO_pending(networkInput))
        let capacity = max(64, min(Self.maximumRecordSize, available))
        var buffer = allocator.buffer(capacity: capacity)
        var result: Int32 = 0
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { bytes in
            result = SSL_read(ssl, bytes.baseAddress, Int32(min(bytes.count, Self.maximumRecordSize)))
            return result > 0 ? Int(result) : 0
        }
        if result > 0 { return .plaintext(buffer) }
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantsMore
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(.collect(code: code))
        }
    }

    /// Encrypts all of `buffer` into the output BIO (a memory BIO never takes part of it); an empty buffer is written
    /// at once.
    func writePlaintext(_ buffer: ByteBuffer) -> WriteResult {
        guard buffer.readableBytes > 0 else { return .written }
        cossl_clear_errors()
        let result = buffer.withUnsafeReadableBytes { bytes in
            SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        }
        if result > 0 { return .written }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return .wantsMore }
        return .failed(.collect(code: code))
    }

    /// Queues close_notify.
    func doShutdown() -> ShutdownResult {
        cossl_clear_errors()
        let result = SSL_shutdown(ssl)
        if result == 1 { return .complete }
        if result == 0 { return .sent }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return .sent }
        return .failed(.collect(code: code))
    }

    // MARK: Session

    /// What the completed handshake negotiated, and the chain the server sent (leaf first).
    func sessionInfo() -> TLSSessionInfo {
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
        var info = TLSSessionInfo(version: version, cipher: cipher, alpn: alpn, servedChain: chain)
        info.clientCertificateRequested = clientCertificateRequested
        info.clientCertificatePresented = clientCertificatePresented
        var stapled: UnsafePointer<UInt8>? = nil
        let stapledLength = cossl_SSL_stapled_ocsp(ssl, &stapled)
        if stapledLength > 0, let stapled { info.stapledOCSP = Data(bytes: stapled, count: stapledLength) }
        return info
    }
}
