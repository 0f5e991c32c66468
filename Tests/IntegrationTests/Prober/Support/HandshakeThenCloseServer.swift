import Foundation

/// A TLS server (python3's ssl module, a real OpenSSL) that completes the handshake and then closes the connection
/// without answering: with close_notify (`graceful`) or by dropping the TCP connection.
final class HandshakeThenCloseServer {
    private let server: PythonScriptServer
    var port: Int { server.port }

    init(certificate: String, key: String, graceful: Bool) throws {
        let script = """
        import socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        listener = socket.create_server(("127.0.0.1", int(sys.argv[3])))
        graceful = sys.argv[4] == "graceful"
        while True:
            client, _ = listener.accept()
            try:
                tls = context.wrap_socket(client, server_side=True)
                if graceful:
                    tls.unwrap().close()
                else:
                    tls.close()
            except (ssl.SSLError, OSError):
                client.close()
        """
        server = try PythonScriptServer(script: script) { port in [certificate, key, String(port), graceful ? "graceful" : "abrupt"] }
    }

    func stop() { server.stop() }
}
