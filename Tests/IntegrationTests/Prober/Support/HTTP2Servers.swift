import Foundation
import NetVigilTestSupport

/// nginx with HTTP/2 on two TLS sites (Debian 12's nginx 1.22: `listen ... ssl http2`), the test CA's leaf.
/// Endpoints: /json, /text, /big (64 KiB), /redirect (→ the other site's /json).
final class NginxHTTP2Server {
    let port = freePort()
    let otherPort = freePort()
    let prefix: String
    private let nginx: NginxProcess

    init(pki: TestPKI = .shared) throws {
        let prefix = NSTemporaryDirectory() + "netvigil-nginx-h2-\(UUID().uuidString)"
        self.prefix = prefix
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        try String(repeating: "x", count: 65_536).write(toFile: prefix + "/big.txt", atomically: true, encoding: .utf8)
        func site(_ port: Int, redirectTo: Int) -> String {
            """
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    server_name localhost;
                    ssl_certificate \(pki.path("ca-leaf.crt"));
                    ssl_certificate_key \(pki.path("ca-leaf.key"));
                    location = /json { default_type application/json; return 200 '{"status":"UP"}'; }
                    location = /text { default_type text/plain; return 200 'hello netvigil'; }
                    location = /big { default_type text/plain; alias \(prefix)/big.txt; }
                    location = /redirect { return 302 https://localhost:\(redirectTo)/json; }
                }
            """
        }
        let (port, otherPort) = (port, otherPort)
        nginx = try NginxProcess(prefix: prefix, servers: site(port, redirectTo: otherPort) + "\n" + site(otherPort, redirectTo: port),
                                 ports: [port, otherPort])
    }

    func stop() {
        nginx.stop()
        try? FileManager.default.removeItem(atPath: prefix)
    }

    deinit { stop() }
}

/// nghttpd (Debian's nghttp2-server): an HTTP/2-only TLS server (ALPN `h2` only) serving `health.json`.
final class NghttpdServer {
    let port = freePort()
    let directory = NSTemporaryDirectory() + "netvigil-nghttpd-\(UUID().uuidString)"
    private let process: ListeningProcess

    init(pki: TestPKI = .shared) throws {
        try FileManager.default.createDirectory(atPath: directory + "/htdocs", withIntermediateDirectories: true)
        try #"{"status":"UP"}"#.write(toFile: directory + "/htdocs/health.json", atomically: true, encoding: .utf8)
        let executable = "/usr/sbin/nghttpd"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw MissingTool(message: "\(executable) missing: make test installs the Debian package nghttp2-server")
        }
        process = try ListeningProcess(
            executable: executable,
            arguments: ["--address=127.0.0.1", "--htdocs=" + directory + "/htdocs", String(port), pki.path("ca-leaf.key"),
                        pki.path("ca-leaf.crt")],
            port: port, logPath: directory + "/nghttpd.log")
    }

    func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// A server binary the test needs is not installed.
struct MissingTool: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A hand-written HTTP/2 server (python3 ssl, ALPN `h2` only, raw frames) that misbehaves after the client's
/// HEADERS as `mode` says, then keeps the connection open until the client closes it.
final class HostileHTTP2Server {
    /// What the server does.
    enum Mode: String {
        /// Answers 200 with `hello` (the raw frames are right).
        case ok
        /// GOAWAY with last stream 0: the probe's stream is refused.
        case goAway
        /// RST_STREAM INTERNAL_ERROR on the probe's stream.
        case resetStream
        /// Sends its SETTINGS and never answers the request.
        case silent
        /// Sends nothing at all after the handshake.
        case mute
        /// A 16 MiB frame length (over every frame size limit).
        case hugeFrame
        /// HEADERS with an undecodable HPACK block.
        case badHeaders
        /// DATA on stream 0 (a connection error).
        case dataOnStreamZero
        /// 200 and then DATA frames without end (more than any body limit).
        case endlessBody
        /// Random bytes.
        case garbage
        /// HEADERS with `:status 103` (Early Hints) without end, never a final response.
        case endlessEarlyHints
    }

    private let server: PythonScriptServer
    var port: Int { server.port }

    init(mode: Mode, pki: TestPKI = .shared) throws {
        server = try PythonScriptServer(script: Self.script) { port in
            [pki.path("ca-leaf.crt"), pki.path("ca-leaf.key"), String(port), mode.rawValue]
        }
    }

    func stop() { server.stop() }

    private static let script = """
        import os, socket, ssl, struct, sys, threading, time
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        context.set_alpn_protocols(["h2"])
        mode = sys.argv[4]
        listener = socket.create_server(("127.0.0.1", int(sys.argv[3])))
        def frame(kind, flags, stream, payload=b""):
            return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
        def await_headers(tls):
            data = b""
            while True:
                chunk = tls.recv(65536)
                if not chunk: return False
                data += chunk
                frames = data[24:] if data.startswith(b"PRI * HTTP/2.0") else data
                i = 0
                while i + 9 <= len(frames):
                    if frames[i + 3] == 1: return True
                    i += 9 + int.from_bytes(frames[i:i + 3], "big")
        def serve(client):
            try:
                with context.wrap_socket(client, server_side=True) as tls:
                    if mode != "mute":
                        tls.sendall(frame(4, 0, 0))
                        if not await_headers(tls): return
                    if mode == "ok":
                        tls.sendall(frame(1, 4, 1, b"\\x88") + frame(0, 1, 1, b"hello"))
                    elif mode == "goAway":
                        tls.sendall(frame(7, 0, 0, struct.pack(">II", 0, 0)))
                    elif mode == "resetStream":
                        tls.sendall(frame(3, 0, 1, struct.pack(">I", 2)))
                    elif mode == "hugeFrame":
                        tls.sendall(b"\\xff\\xff\\xff\\x00\\x00\\x00\\x00\\x00\\x01" + b"x" * 1024)
                    elif mode == "badHeaders":
                        tls.sendall(frame(1, 5, 1, b"\\xff\\xff\\xff\\xff\\xff"))
                    elif mode == "dataOnStreamZero":
                        tls.sendall(frame(0, 0, 0, b"boom"))
                    elif mode == "endlessBody":
                        tls.sendall(frame(1, 4, 1, b"\\x88"))
                        for _ in range(64): tls.sendall(frame(0, 0, 1, b"x" * 1000))
                    elif mode == "garbage":
                        tls.sendall(os.urandom(4096))
                    elif mode == "endlessEarlyHints":
                        while True: tls.sendall(frame(1, 4, 1, b"\\x08\\x03103"))
                    while tls.recv(65536): pass
            except (ssl.SSLError, OSError):
                client.close()
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
}
