import COpenSSL

extension OpenSSLServerContext {
    /// `SSL_CTX_set_verify`'s callback for `client_ca`: on top of OpenSSL's chain check, the client's own certificate
    /// must be an end entity fit for client authentication.
    ///
    /// OpenSSL accepts any certificate that chains to a trusted one, the trusted CA certificate itself included (it
    /// is its own chain), and a CA below it: whoever holds a CA's key (an issuing service, a backup of it) would
    /// pass as a client. So the leaf may not be a CA (basicConstraints cA, keyCertSign, a v1 self-signed root), and
    /// an extendedKeyUsage, when present, must list clientAuth (OpenSSL's "ssl_client" purpose checks that too; kept
    /// here so the rule does not depend on the purpose default).
    static let verifyClientCertificate: @convention(c) (Int32, OpaquePointer?) -> Int32 = { preverified, store in
        guard preverified == 1, let store, X509_STORE_CTX_get_error_depth(store) == 0,
              let leaf = X509_STORE_CTX_get_current_cert(store) else { return preverified }
        if X509_check_ca(leaf) != 0 {
            X509_STORE_CTX_set_error(store, X509_V_ERR_INVALID_PURPOSE)
            return 0
        }
        if X509_get_extension_flags(leaf) & UInt32(EXFLAG_XKUSAGE) != 0,
           X509_get_extended_key_usage(leaf) & UInt32(XKU_SSL_CLIENT) == 0 {
            X509_STORE_CTX_set_error(store, X509_V_ERR_INVALID_PURPOSE)
            return 0
        }
        return 1
    }
}
