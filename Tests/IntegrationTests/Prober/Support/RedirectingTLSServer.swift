import Foundation
import NetVigilTestSupport

/// An HTTPS server (python3's ssl module) that records every request head it receives. `GET /go?to=URL` answers
/// `302 Found` with `Location: URL` (percent-decoded); any other path answers `200 OK`.
final class RedirectingTLSServer {
    private let server: PythonScriptServer
    private let logPath: String
    var port: Int { server.port }

    init(certificate: String, key: String) throws {
        logPath = NSTemporaryDirectory() + "netvigil-redirect-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let script = PythonScriptServer.tlsScript(imports: ", urllib.parse", setup: "lock = threading.Lock()", respond: """
            head = request.split(b"\\r\\n\\r\\n")[0]
            with lock, open(sys.argv[4], "ab") as log:
                log.write(head + b"\\r\\n\\r\\n")
            target = head.split(b"\\r\\n")[0].split(b" ")[1].decode()
            if target.startswith("/go?to="):
                location = urllib.parse.unquote(target[len("/go?to="):])
                reply = "HTTP/1.1 302 Found\\r\\nLocation: " + location + "\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n"
            else:
                reply = "HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 3\\r\\nConnection: close\\r\\n\\r\\nok\\n"
            tls.sendall(reply.encode())
            """)
        let log = logPath
        server = try PythonScriptServer(script: script) { port in [certificate, key, String(port), log] }
    }

    /// The request heads received so far, in order.
    var requests: [String] {
        let text = String(decoding: FileManager.default.contents(atPath: logPath) ?? Data(), as: UTF8.self)
        return text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    }

    /// The heads of requests whose target starts with `path`.
    func requests(to path: String) -> [String] {
        requests.filter { $0.split(separator: " ").dropFirst().first?.hasPrefix(path) == true }
    }

    func stop() { server.stop() }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
