import Foundation
import NetVigilTestSupport
import XCTest

/// The Grafana test's fixtures: a PKI, processes (nginx, a webhook receiver, Prometheus) and Prometheus's HTTP API.
extension GrafanaDashboardTests {
    // MARK: Fixtures

    func openssl(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// A CA and a leaf for 127.0.0.1 (`leaf.pem`, `leaf.key`); returns the leaf's SPKI pin.
    func makePKI() throws -> String {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                     "-subj", "/CN=netvigil grafana CA", "-keyout", directory.path("ca.key"), "-out", directory.path("ca.pem")])
        let extensions = try directory.write("leaf.ext", "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
                     "-keyout", directory.path("leaf.key"), "-out", directory.path("leaf.csr")])
        try openssl(["x509", "-req", "-in", directory.path("leaf.csr"), "-CA", directory.path("ca.pem"),
                     "-CAkey", directory.path("ca.key"), "-CAcreateserial", "-days", "30", "-extfile", extensions,
                     "-out", directory.path("leaf.pem")])
        let pin = try ProcessRunner.run(["pin", "--json", directory.path("leaf.pem")])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        let certificates = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(pin.stdout.utf8)) as? [[String: Any]])
        return try XCTUnwrap(certificates.first?["pin"] as? String, pin.stdout)
    }

    @discardableResult
    func start(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        let logPath = directory.path(log)
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes.append(process)
        return process
    }

    func startNginx(port: Int) throws {
        nginxes.append(try NginxProcess(prefix: directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(directory.path("leaf.pem"));
                    ssl_certificate_key \(directory.path("leaf.key"));
                    location = /health { default_type application/json; return 200 '{"status":"UP"}'; }
                }
            """, ports: [port]))
    }

    /// A webhook sink that accepts every delivery.
    func startWebhookReceiver(port: Int) throws {
        let script = try directory.write("receiver.py", """
            import sys
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_POST(self):
                    self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
            ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """)
        try start("/usr/bin/python3", [script, "\(port)"], log: "receiver.log")
    }

    func logTail(_ name: String) -> String {
        let text = (try? String(contentsOfFile: directory.path(name), encoding: .utf8)) ?? "(no \(name))"
        return "\(name):\n\(text.suffix(2_000))"
    }

    func waitUntil(_ what: String, timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? condition()) == true { return }
            for process in processes where !process.isRunning {
                throw Aborted(description: "\(process.executableURL?.lastPathComponent ?? "?") exited while waiting for "
                              + "\(what)\n\(logTail("daemon.log"))\n\(logTail("prometheus.log"))")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw Aborted(description: "timed out after \(Int(timeout)) s waiting for \(what)\n\(logTail("daemon.log"))\n"
                      + logTail("prometheus.log"))
    }

    // MARK: Prometheus HTTP API

    /// GET on Prometheus's API; returns the JSON envelope (`status`, `data` or `errorType`/`error`).
    func prometheus(_ path: String, _ parameters: [(String, String)] = []) throws -> [String: Any] {
        var arguments = ["-s", "-m", "10", "-G", "http://127.0.0.1:\(prometheusPort)\(path)"]
        for (name, value) in parameters { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 15)
        guard let envelope = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw Aborted(description: "\(path) \(parameters): not a Prometheus API answer: \(result.stdout.prefix(300)) \(result.stderr)")
        }
        return envelope
    }

    func instantQuery(_ expression: String) throws -> (error: String?, result: [[String: Any]]) {
        let envelope = try prometheus("/api/v1/query", [("query", expression)])
        guard envelope["status"] as? String == "success" else {
            return ("\(envelope["errorType"] ?? "?"): \(envelope["error"] ?? "?")", [])
        }
        return (nil, (envelope["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? [])
    }

    func metricNamesInPrometheus() throws -> Set<String> {
        Set(try prometheus("/api/v1/label/__name__/values")["data"] as? [String] ?? [])
    }
}
