import Foundation
import NetVigilTestSupport

/// A python3 script that serves on a free 127.0.0.1 port; ready once the port accepts, stopped on `stop()` or deinit.
final class PythonScriptServer {
    let port = freePort()
    private let process = Process()

    /// Runs `python3 -c script ARGS...` where `arguments` gets the port chosen for the script.
    init(script: String, arguments: (_ port: Int) -> [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments(port)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do { try waitForPort(port) } catch { stop(); throw error }
    }

    func stop() { terminate(process) }

    deinit { stop() }
}

extension PythonScriptServer {
    /// A python3 HTTPS server script (a real OpenSSL through python's ssl module): certificate `argv[1]`, key
    /// `argv[2]`, port `argv[3]`. `setup` (python at the left margin) runs once the context exists; per connection the
    /// request head is read into `request`, then `respond` runs (python at the left margin; `tls` is the connection).
    static func tlsScript(imports: String = "", setup: String = "", respond: String) -> String {
        let indented = respond.split(separator: "\n").map { "            " + $0 }.joined(separator: "\n")
        return """
        import socket, ssl, sys, threading\(imports)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        \(setup)
        listener = socket.create_server(("127.0.0.1", int(sys.argv[3])))
        def serve(client):
            try:
                with context.wrap_socket(client, server_side=True) as tls:
                    request = b""
                    while b"\\r\\n\\r\\n" not in request:
                        chunk = tls.recv(4096)
                        if not chunk: return
                        request += chunk
        \(indented)
            except (ssl.SSLError, OSError):
                client.close()
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
    }
}
