import COpenSSL
import NetVigilTrust

/// OpenSSL's once-per-process set-up, done ahead of the first handshake.
public enum OpenSSLPreparation {
    /// Loads OpenSSL's configuration and default provider and fetches what a TLS client context needs (ciphers,
    /// digests, groups, signature algorithms): the first `SSL_CTX_new` of a process pays for all of it, later ones
    /// find it cached. `netvigil probe` runs this on its event loop while the main thread parses the arguments.
    public static func warmUp() {
        OpenSSLKeyMethods.prepare()
        if let context = SSL_CTX_new(TLS_client_method()) { SSL_CTX_free(context) }
    }
}
