import COpenSSL
import Foundation
import NIOCore
import NetVigilTestSupport

/// An OpenSSL TLS server inside the test process, over two memory BIOs and written directly against OpenSSL (not
/// through the code under test): `receive(_:)` takes the client's ciphertext, `step()` runs the handshake or reads
/// plaintext into `received`, `takeCiphertext()` returns what the server wants sent. Serves TestPKI's `ca-leaf`.
final class MemoryTLSServer {
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    /// The ALPN protocol selected when the client offers it (a C string the select callback reads), nil: none.
    private let alpn: UnsafeMutablePointer<CChar>?

    /// Plaintext the client sent, in order.
    private(set) var received: [UInt8] = []
    /// The client's close_notify arrived.
    private(set) var sawCloseNotify = false
    /// SSL_get_error of the server's last failed call (handshake or read), 0 while none failed.
    private(set) var failureCode: Int32 = 0

    /// A server; `tls13Only` with `cipherSuites` narrows what it accepts (e.g. a suite the client does not offer).
    /// `tls12Only`: TLS 1.2, where the server's Finished ends the handshake, so it can send application data in the
    /// client's last handshake read. `alpn`: the protocol it selects when the client offers it.
    init(tls13Only: Bool = false, tls12Only: Bool = false, cipherSuites: String? = nil, alpn: String? = nil) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw SetupError(description: "SSL_CTX_new") }
        self.context = context
        guard SSL_CTX_use_certificate_file(context, TestPKI.shared.path("ca-leaf.crt"), SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_PrivateKey_file(context, TestPKI.shared.path("ca-leaf.key"), SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            throw SetupError(description: "cannot load the test certificate")
        }
        if tls13Only { _ = cossl_SSL_CTX_set_min_proto_version(context, TLS1_3_VERSION) }
        if let cipherSuites { _ = SSL_CTX_set_ciphersuites(context, cipherSuites) }
        if tls12Only { _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) }
        let selectedName = alpn.flatMap { strdup($0) }
        if let selected = selectedName {
            SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, offered, offeredLength, argument in
                guard let out, let outLength, let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
                let wanted = Array(UnsafeBufferPointer(start: argument.assumingMemoryBound(to: UInt8.self),
                                                       count: strlen(argument.assumingMemoryBound(to: CChar.self))))
                var index = 0
                while index < Int(offeredLength) {  // length-prefixed names
                    let length = Int(offered[index])
                    if Array(UnsafeBufferPointer(start: offered + index + 1, count: length)) == wanted {
                        out.pointee = offered + index + 1
                        outLength.pointee = UInt8(length)
                        return SSL_TLSEXT_ERR_OK
                    }
                    index += 1 + length
                }
                return SSL_TLSEXT_ERR_NOACK
            }, selected)
        }
        self.alpn = selectedName
        guard let ssl = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw SetupError(description: "SSL_new / BIO_new")
        }
        _ = cossl_BIO_set_mem_eof_return(input, -1)
        _ = cossl_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        free(alpn)
    }

    var isHandshakeComplete: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Ciphertext from the client.
    func receive(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress, bytes.count > 0 { _ = BIO_write(input, base, Int32(bytes.count)) }
        }
    }

    /// Advances the handshake, then reads whatever plaintext arrived.
    func step() {
        guard failureCode == 0 else { return }
        ERR_clear_error()
        if !isHandshakeComplete {
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                let code = SSL_get_error(ssl, result)
                if code != SSL_ERROR_WANT_READ && code != SSL_ERROR_WANT_WRITE { failureCode = code }
                return
            }
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = SSL_read(ssl, &chunk, Int32(chunk.count))
            if count > 0 {
                received += chunk.prefix(Int(count))
                continue
            }
            let code = SSL_get_error(ssl, count)
            if code == SSL_ERROR_ZERO_RETURN { sawCloseNotify = true } else if code != SSL_ERROR_WANT_READ { failureCode = code }
            return
        }
    }

    /// Encrypts `text` for the client (after the handshake).
    func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Encrypts `bytes` for the client (after the handshake).
    func send(_ bytes: [UInt8]) {
        _ = SSL_write(ssl, bytes, Int32(bytes.count))
    }

    /// Queues the server's close_notify.
    func shutdown() {
        _ = SSL_shutdown(ssl)
    }

    /// The ciphertext the server produced since the last call, nil when none.
    func takeCiphertext() -> ByteBuffer? {
        let pending = Int(cossl_BIO_pending(output))
        guard pending > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: pending)
        let count = BIO_read(output, &bytes, Int32(pending))
        return count > 0 ? ByteBuffer(bytes: bytes.prefix(Int(count))) : nil
    }
}
