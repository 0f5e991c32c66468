import COpenSSL
import NIOCore

/// Why a TLS server context could not be set up; the message names the file and what to fix, never key material.
public struct TLSServerSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which setting the problem is in.
    public enum Setting: String, Sendable {
        case certificate, key, clientCA = "client_ca"
    }

    public var setting: Setting
    public var message: String

    public var description: String { message }
}

/// One OpenSSL server `SSL_CTX` (the feed's HTTPS): a certificate chain, its private key and, optionally, the CAs whose
/// client certificates are required. Read-only once made; a reload makes a new one and new connections use it.
public final class OpenSSLServerContext: @unchecked Sendable {
    /// The `SSL_CTX`.
    let pointer: OpaquePointer
    /// Whether clients must present a certificate issued by `client_ca` (an end entity for clientAuth, never a CA:
    /// see ``verifyClientCertificate``).
    public let requiresClientCertificate: Bool

    /// Loads `certificateFile` (PEM, leaf first, then intermediates) and `keyFile` (PEM), and `clientCAFile` (PEM CAs)
    /// when given; TLS 1.2 or later.
    public init(certificateFile: String, keyFile: String, clientCAFile: String?) throws(TLSServerSetupError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSServerSetupError(setting: .certificate, message: "OpenSSL: cannot create SSL_CTX")
        }
        do throws(TLSServerSetupError) {
            cossl_clear_errors()
            _ = cossl_SSL_CTX_set_min_proto_version(context, Int32(TLS1_2_VERSION))
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw TLSServerSetupError(setting: .certificate,
                                          message: "cannot load the certificate chain from \(certificateFile) (PEM, leaf first): \(Self.lastError())")
            }
            guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(context) == 1 else {
                let reason = Self.lastError()
                if reason.contains("key values mismatch") || reason.contains("check private key") {
                    throw TLSServerSetupError(setting: .key, message: "the key in \(keyFile) does not match the certificate in \(certificateFile)")
                }
                throw TLSServerSetupError(setting: .key,
                                          message: "cannot load the private key from \(keyFile) (an unencrypted PEM key): \(reason)")
            }
            if let clientCAFile {
                guard SSL_CTX_load_verify_locations(context, clientCAFile, nil) == 1,
                      let names = SSL_load_client_CA_file(clientCAFile) else {
                    throw TLSServerSetupError(setting: .clientCA,
                                              message: "cannot load client CA certificates from \(clientCAFile) (PEM): \(Self.lastError())")
                }
                SSL_CTX_set_client_CA_list(context, names)
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, Self.verifyClientCertificate)
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        pointer = context
        requiresClientCertificate = clientCAFile != nil
    }

    deinit { SSL_CTX_free(pointer) }

    /// A channel handler that serves TLS on one accepted connection with this context.
    public func makeChannelHandler() throws -> any ChannelHandler & RemovableChannelHandler {
        try OpenSSLTLSHandler(connection: OpenSSLConnection(serverContext: self))
    }

    private static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cossl_last_error_string(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cossl_clear_errors()
        return text.isEmpty ? "unreadable or not PEM" : text
    }
}
