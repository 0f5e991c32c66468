import Foundation

/// An HTTPS server (python3's ssl module, a real OpenSSL) that offers one TLS version and one key-exchange group and
/// answers every request with `200 OK` and a short text body.
final class CurveRestrictedTLSServer {
    private let server: PythonScriptServer
    var port: Int { server.port }

    /// - Parameters:
    ///   - version: "TLSv1_2" or "TLSv1_3" (an `ssl.TLSVersion` name).
    ///   - group: the only ECDHE group offered (e.g. "prime256v1"); TLS 1.3 clients that lead with X25519 get a
    ///     HelloRetryRequest.
    init(certificate: String, key: String, version: String, group: String) throws {
        let script = PythonScriptServer.tlsScript(setup: """
            context.minimum_version = context.maximum_version = getattr(ssl.TLSVersion, sys.argv[4])
            context.set_ecdh_curve(sys.argv[5])
            """, respond: """
            tls.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 3\\r\\nConnection: close\\r\\n\\r\\nok\\n")
            """)
        server = try PythonScriptServer(script: script) { port in [certificate, key, String(port), version, group] }
    }

    func stop() { server.stop() }
}
