extension TLSSessionInfo {
    /// nginx with `ssl_verify_client on` completes the handshake whatever the client presents and answers 400 with
    /// one of these pages; after a CertificateRequest they mean the certificate was missing or refused.
    static let nginxMissingCertificatePage = "No required SSL certificate was sent"
    static let nginxRefusedCertificatePage = "The SSL certificate error"

    /// The response as `clientCertificateRequired` / `clientCertificateRejected` when it is a server's HTTP-level
    /// refusal of the client certificate (nginx's 400 pages) on a connection where the server asked for one.
    func clientCertificateError(for response: HTTPResponse) -> ProbeError? {
        guard clientCertificateRequested, response.status == 400, response.body.count <= 4096 else { return nil }
        let body = String(decoding: response.body, as: UTF8.self)
        if body.contains(Self.nginxMissingCertificatePage) {
            return ProbeError(.clientCertificateRequired,
                              "the server requires a client certificate and none was presented (HTTP 400 \"\(Self.nginxMissingCertificatePage)\"; "
                              + "set tls.client_certificate and tls.client_key, or --cert and --key)")
        }
        if body.contains(Self.nginxRefusedCertificatePage) {
            let what = clientCertificatePresented ? "rejected the client certificate" : "requires a client certificate"
            return ProbeError(clientCertificatePresented ? .clientCertificateRejected : .clientCertificateRequired,
                              "the server \(what) (HTTP 400 \"\(Self.nginxRefusedCertificatePage)\": no TLS alert, nginx checks after the handshake)")
        }
        return nil
    }
}
