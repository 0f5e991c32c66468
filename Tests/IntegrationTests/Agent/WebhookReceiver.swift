import Foundation
import NetVigilTestSupport
import XCTest

/// A real HTTP receiver on 127.0.0.1 (python3's http.server, a thread per request): answers POSTs with the given
/// statuses in turn (the last one repeats) and records every request's headers and body, one JSON line each, as it
/// arrives. Status 0 holds the request open and never answers (a receiver that hangs); the others are still served.
final class WebhookReceiver {
    struct Request {
        var path: String
        var headers: [String: String]
        var body: String
        var status: Int

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }
    }

    static let script = """
        import http.server, json, sys, threading
        port, log, statuses = int(sys.argv[1]), sys.argv[2], [int(s) for s in sys.argv[3].split(',')]
        count = 0
        lock = threading.Lock()
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                global count
                body = self.rfile.read(int(self.headers.get('Content-Length', '0'))).decode()
                with lock:
                    status = statuses[min(count, len(statuses) - 1)]
                    count += 1
                    with open(log, 'a') as f:
                        f.write(json.dumps({'path': self.path, 'headers': dict(self.headers), 'body': body, 'status': status}) + '\\n')
                if status == 0:
                    threading.Event().wait()
                    return
                self.send_response(status)
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'ok')
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler)
        server.daemon_threads = True
        print('ready', flush=True)
        server.serve_forever()
        """

    let port: Int
    let logPath: String
    private let process = Process()

    /// Starts the receiver; `port` 0 picks a free one.
    init(directory: TemporaryDirectory, statuses: [Int], port: Int = 0) throws {
        self.port = port == 0 ? ProcessRunner.freePort() : port
        logPath = directory.path("receiver-\(self.port).jsonl")
        let scriptPath = try directory.write("receiver.py", Self.script)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [scriptPath, "\(self.port)", logPath, statuses.map(String.init).joined(separator: ",")]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for "ready" (the socket is listening once it is printed).
        let line = output.fileHandleForReading.readData(ofLength: 6)
        guard String(decoding: line, as: UTF8.self).hasPrefix("ready") else {
            stop()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "webhook receiver did not start"])
        }
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// The requests received so far.
    var requests: [Request] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Request(path: object["path"] as? String ?? "", headers: object["headers"] as? [String: String] ?? [:],
                           body: object["body"] as? String ?? "", status: object["status"] as? Int ?? 0)
        }
    }

    func stop() {
        if process.isRunning {
            // SIGKILL: a child started from a test thread inherits that thread's blocked signals, SIGTERM included.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
