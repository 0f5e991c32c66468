import COpenSSL
import NetVigilSystem
import NetVigilTrust

/// One OpenSSL client `SSL_CTX` per `TLSConfiguration`, shared by every connection that uses it.
///
/// Making a context per connection is a noticeable share of a probe's CPU. A context is read-only once set up, so
/// `SSL_new` may use it from any thread; each `SSL` takes its own reference, so a cached context lives for the
/// process (there are as many as distinct configurations, a handful).
final class OpenSSLClientContext: @unchecked Sendable {
    /// The `SSL_CTX`.
    let pointer: OpaquePointer

    private static let cache = SharedCache<TLSConfiguration, OpenSSLClientContext>()

    /// The shared context for `configuration`, made on first use.
    static func shared(for configuration: TLSConfiguration) throws(ProbeError) -> OpenSSLClientContext {
        try cache.value(for: configuration) { () throws(ProbeError) in try OpenSSLClientContext(configuration: configuration) }
    }

    private init(configuration: TLSConfiguration) throws(ProbeError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot create SSL_CTX")
        }
        _ = cossl_SSL_CTX_set_min_proto_version(context, Int32(configuration.minimumVersion.openSSLValue))
        // OpenSSL prefers AES-256-GCM with SHA-384; AES-128-GCM with SHA-256 first (as Go, Chrome and Firefox order
        // them) lets the handshake's hashing use the CPU's SHA extensions, so a probe costs less CPU. Same suites.
        _ = cossl_SSL_CTX_prefer_aes128_gcm(context)
        // ServerTrustEvaluator judges the served chain once the handshake is done; OpenSSL's own chain building
        // would be discarded work (SSL_VERIFY_NONE still runs it), so the verification step accepts at once.
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        SSL_CTX_set_cert_verify_callback(context, { _, _ in 1 }, nil)
        var alpn: [UInt8] = []
        for name in configuration.alpnProtocols where !name.isEmpty && name.utf8.count < 256 {
            alpn.append(UInt8(name.utf8.count))
            alpn += name.utf8
        }
        if !alpn.isEmpty { _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) }
        do {
            try Self.installClientCertificate(configuration.clientIdentity, on: context)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        pointer = context
    }

    deinit { SSL_CTX_free(pointer) }
}
