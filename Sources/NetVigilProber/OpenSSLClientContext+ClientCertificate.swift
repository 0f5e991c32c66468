import COpenSSL

extension OpenSSLClientContext {
    /// Makes `context` note CertificateRequests (so a refused handshake can be told apart) and, with `identity`,
    /// present its chain and key. The key goes into the context once; every connection of it shares it.
    static func installClientCertificate(_ identity: ClientIdentity?, on context: OpaquePointer) throws(ProbeError) {
        cossl_SSL_CTX_note_certificate_requests(context)
        guard let identity else { return }
        guard SSL_CTX_use_certificate(context, identity.chain[0].x509) == 1,
              SSL_CTX_use_PrivateKey(context, identity.key) == 1,
              SSL_CTX_check_private_key(context) == 1
        else {
            cossl_clear_errors()
            throw ProbeError(.tlsHandshake, "OpenSSL: cannot use the client certificate \(identity.certificatePath)")
        }
        for certificate in identity.chain.dropFirst() {
            // add1: the context takes its own reference.
            guard SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.x509)) == 1 else {
                cossl_clear_errors()
                throw ProbeError(.tlsHandshake, "OpenSSL: cannot add \(certificate.subject) to the client certificate chain")
            }
        }
    }
}
