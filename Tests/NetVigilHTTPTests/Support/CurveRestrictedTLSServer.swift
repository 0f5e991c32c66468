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
        let script = """
        import socket, ssl, sys, threading
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        context.minimum_version = context.maximum_version = getattr(ssl.TLSVersion, sys.argv[4])
        context.set_ecdh_curve(sys.argv[5])
        listener = socket.create_server(("127.0.0.1", int(sys.argv[3])))
        def serve(client):
            try:
                with context.wrap_socket(client, server_side=True) as tls:
                    request = b""
                    while b"\\r\\n\\r\\n" not in request:
                        chunk = tls.recv(4096)
                        if not chunk: return
                        request += chunk
                    tls.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 3\\r\\nConnection: close\\r\\n\\r\\nok\\n")
            except (ssl.SSLError, OSError):
                client.close()
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
        server = try PythonScriptServer(script: script) { port in [certificate, key, String(port), version, group] }
    }

    func stop() { server.stop() }
}
