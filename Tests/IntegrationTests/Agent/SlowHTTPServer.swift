import Foundation
import NetVigilTestSupport
import XCTest

/// A real HTTP server on loopback (python3's ThreadingHTTPServer) for scheduler tests: `GET /slow/NAME?ms=N`
/// answers after N ms and counts, per NAME, requests and the most that were in flight at once; `GET /stats`
/// returns those counts as JSON.
final class SlowHTTPServer {
    let port: Int
    private let process: Process

    init(directory: TemporaryDirectory) throws {
        port = ProcessRunner.freePort()
        let script = try directory.write("slow_server.py", """
            import json, sys, threading, time
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            from urllib.parse import urlparse, parse_qs
            lock = threading.Lock()
            stats = {}
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    url = urlparse(self.path)
                    if url.path == "/stats":
                        with lock: body = json.dumps(stats).encode()
                        return self.reply(body)
                    name = url.path.rsplit("/", 1)[-1]
                    ms = int(parse_qs(url.query).get("ms", ["0"])[0])
                    with lock:
                        s = stats.setdefault(name, {"requests": 0, "inflight": 0, "max_inflight": 0})
                        s["requests"] += 1; s["inflight"] += 1
                        s["max_inflight"] = max(s["max_inflight"], s["inflight"])
                        total = sum(v["inflight"] for k, v in stats.items() if k != "_all")
                        stats["_all"] = {"max_inflight": max(stats.get("_all", {}).get("max_inflight", 0), total)}
                    time.sleep(ms / 1000)
                    with lock: s["inflight"] -= 1
                    self.reply(b"ok")
                def reply(self, body):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            ThreadingHTTPServer.daemon_threads = True
            ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? stats()) != nil { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw SlowHTTPServerError(message: "python3 test server did not start on port \(port)")
    }

    /// Per-name counters (`requests`, `max_inflight`); `_all` has the global `max_inflight`.
    func stats() throws -> [String: [String: Int]] {
        let (status, body) = try ProcessRunner.curl("http://127.0.0.1:\(port)/stats")
        guard status == 200 else { throw SlowHTTPServerError(message: "GET /stats answered \(status)") }
        return try JSONDecoder().decode([String: [String: Int]].self, from: Data(body.utf8))
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

struct SlowHTTPServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
