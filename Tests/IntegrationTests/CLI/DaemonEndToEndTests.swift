import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon as users run it: real nginx serving a pinned certificate, a real webhook receiver, the real binary.
/// Swapping nginx's key raises one firing pin-mismatch alert, swapping back one resolved alert; a mismatch that
/// fires while the receiver is down survives `kill -9` and is delivered after a restart, exactly once per key.
final class DaemonEndToEndTests: XCTestCase {
    var directory: TemporaryDirectory!
    private var processes: [Process] = []
    /// `b`, the MITM leaf, has another key than the pinned `a`.
    var pki: LoopbackPKI!
    private var nginxes: [NginxProcess] = []

    override func tearDown() {
        for nginx in nginxes { nginx.stop() }
        nginxes.removeAll()
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        processes.removeAll()
    }

    // MARK: Fixtures

    func startNginx(port: Int) throws -> NginxProcess {
        let nginx = try NginxProcess(prefix: directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(directory.path("served.pem"));
                    ssl_certificate_key \(directory.path("served.key"));
                    location = /health { default_type application/json; return 200 '{"status":"UP"}'; }
                }
            """, ports: [port])
        nginxes.append(nginx)
        return nginx
    }

    /// A webhook receiver writing one JSON line per delivery (body + Idempotency-Key) to `hooks.ndjson`;
    /// it answers 503 while the file `receiver-down` exists.
    func startReceiver(port: Int) throws -> Process {
        let script = try directory.write("receiver.py", """
            import json, os, sys
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            base = sys.argv[2]
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    if os.path.exists(os.path.join(base, "receiver-down")):
                        self.send_response(503); self.end_headers(); return
                    with open(os.path.join(base, "hooks.ndjson"), "a") as f:
                        f.write(json.dumps({"key": self.headers.get("Idempotency-Key"), "body": json.loads(body)}) + "\\n")
                    self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
            ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "\(port)", directory.url.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return process
    }

    func startDaemon(config: String) throws -> Process {
        let log = directory.path("daemon.log")
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        let process = Process()
        process.executableURL = ProcessRunner.binary
        process.arguments = ["run", "--config", config]
        process.currentDirectoryURL = directory.url
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes.append(process)
        return process
    }

    func hooks() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: directory.path("hooks.ndjson"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func hooks(kind: String, state: String) -> [[String: Any]] {
        hooks().filter { ($0["body"] as? [String: Any])?["kind"] as? String == kind && ($0["body"] as? [String: Any])?["state"] as? String == state }
    }

    func status(feed: Int) -> [String: Any]? {
        guard let (code, body) = try? ProcessRunner.curl("http://127.0.0.1:\(feed)/v1/status"), code == 200 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    }

    func target(_ name: String, feed: Int) -> [String: Any]? {
        (status(feed: feed)?["targets"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    func waitUntil(_ what: String, timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            if let daemon = processes.last(where: { $0.executableURL == ProcessRunner.binary }), !daemon.isRunning { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let log = (try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)) ?? ""
        XCTFail("timed out after \(timeout) s waiting for \(what); daemon log tail:\n\(log.suffix(3_000))")
        throw XCTSkip("aborted: \(what)")
    }

    // MARK: The scenario

    func testPinMismatchAlertsAreDeliveredOnceAndSurviveKill9() throws {
        directory = try TemporaryDirectory()
        pki = try LoopbackPKI(in: directory, caName: "netvigil e2e CA",
                                leaves: [("a", "/CN=127.0.0.1"), ("b", "/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let tlsPort = ProcessRunner.freePort(), hookPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        let nginx = try startNginx(port: tlsPort)
        _ = try startReceiver(port: hookPort)
        func configText(extraTarget: String = "") -> String { """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                expect: { json: ['$.status == "UP"'] }
                tls: { pinning: publicKey, pins: ["\(pinA)", "\(backup)"], ca: [\(directory.path("ca.pem"))] }
            \(extraTarget)
            alerts:
              sinks: [{ name: hook, webhook: { url: "http://127.0.0.1:\(hookPort)/hook", timeout: 2s } }]
              retry: { initial: 200ms, max: 1s }
              rules:
                pin_mismatch: { threshold: 1, reminder: 6h, send_resolved: true }
                trust_failure: { threshold: 1000 }
                target_down: { threshold: 1000 }
            """
        }
        let config = try directory.write("netvigil.yml", configText())
        var daemon = try startDaemon(config: config)
        try waitUntil("a first ok probe", timeout: 30) { self.target("api", feed: feedPort)?["status"] as? String == "up" }

        // /v1/targets/{name}: the target in full with its recent results, newest first; 404 for an unknown name.
        try waitUntil("a few results", timeout: 10) {
            ((try? ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/targets/api"))
                .flatMap { try? JSONSerialization.jsonObject(with: Data($0.1.utf8)) as? [String: Any] }?["results"] as? [Any])?.count ?? 0 >= 3
        }
        let (targetStatus, targetBody) = try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/targets/api")
        XCTAssertEqual(targetStatus, 200, targetBody)
        let detail = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(targetBody.utf8)) as? [String: Any])
        XCTAssertEqual((detail["target"] as? [String: Any])?["name"] as? String, "api")
        let results = try XCTUnwrap(detail["results"] as? [[String: Any]])
        XCTAssertTrue(results.allSatisfy { $0["type"] as? String == "probe" && $0["target"] as? String == "api" })
        let times = results.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted(by: >), "newest first")
        XCTAssertEqual(try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/targets/nope").0, 404)

        // /v1/events delivers a probe result within one interval.
        let events = try ProcessRunner.run(["-s", "-N", "-m", "2.5", "http://127.0.0.1:\(feedPort)/v1/events"],
                                           executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 10)
        XCTAssertTrue(events.stdout.contains("event: probe"), "no probe event within 2.5 s: \(events.stdout.prefix(500))")

        // The MITM key: one firing alert with RFC 7469 report fields, within two intervals (+ delivery slack).
        try pki.serve("b", nginx: nginx)
        try waitUntil("a firing pin_mismatch webhook", timeout: 6) { !self.hooks(kind: "pin_mismatch", state: "firing").isEmpty }
        let firing = try XCTUnwrap(hooks(kind: "pin_mismatch", state: "firing").first?["body"] as? [String: Any])
        XCTAssertEqual(firing["target"] as? String, "api")
        let report = try XCTUnwrap(firing["report"] as? [String: Any])
        XCTAssertEqual(report["hostname"] as? String, "127.0.0.1")
        XCTAssertEqual(report["port"] as? Int, tlsPort)
        let knownPins = try XCTUnwrap(report["known-pins"] as? [String])
        XCTAssertTrue(knownPins.contains("pin-sha256=\"\(pinA.dropFirst("sha256/".count))\""), "\(knownPins)")
        let served = try XCTUnwrap(report["served-certificate-chain"] as? [String])
        let servedB = try String(contentsOfFile: directory.path("b.pem"), encoding: .utf8)
        XCTAssertEqual(served.first?.trimmingCharacters(in: .whitespacesAndNewlines), servedB.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertNotNil(report["date-time"])
        XCTAssertNotNil(report["validated-certificate-chain"])

        // Back to the pinned key: one resolved alert.
        try pki.serve("a", nginx: nginx)
        try waitUntil("a resolved pin_mismatch webhook", timeout: 6) { !self.hooks(kind: "pin_mismatch", state: "resolved").isEmpty }
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(hooks(kind: "pin_mismatch", state: "firing").count, 1, "one firing alert, no repeats")
        XCTAssertEqual(hooks(kind: "pin_mismatch", state: "resolved").count, 1)

        // Receiver down while the mismatch fires; the daemon is killed -9 after the alert is in the outbox.
        _ = FileManager.default.createFile(atPath: directory.path("receiver-down"), contents: nil)
        try pki.serve("b", nginx: nginx)
        try waitUntil("the second mismatch to fire", timeout: 6) {
            (self.target("api", feed: feedPort)?["firing_alerts"] as? [[String: Any]])?.contains { $0["kind"] as? String == "pin_mismatch" } == true
        }
        Thread.sleep(forTimeInterval: 0.5)
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        try FileManager.default.removeItem(atPath: directory.path("receiver-down"))
        daemon = try startDaemon(config: config)
        try waitUntil("the outboxed alert to be delivered after restart", timeout: 15) {
            self.hooks(kind: "pin_mismatch", state: "firing").count >= 2
        }
        Thread.sleep(forTimeInterval: 3)
        let firingKeys = hooks(kind: "pin_mismatch", state: "firing").compactMap { $0["key"] as? String }
        XCTAssertEqual(firingKeys.count, 2, "the restart does not page again for the same mismatch: \(firingKeys)")
        XCTAssertEqual(Set(firingKeys).count, firingKeys.count, "each alert has its own idempotency key")

        // SIGHUP: a broken file keeps the daemon running on the old configuration; a good one adds a target.
        try "targets: [ { name: broken } ]\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.processIdentifier, SIGHUP)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertNotNil(target("api", feed: feedPort), "the running configuration stays")
        let log = try String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("configuration reload refused"), log.suffix(2_000).description)
        let second = "  - { name: second, url: \"https://127.0.0.1:\(tlsPort)/health\", interval: 1s, tls: { ca: [\(directory.path("ca.pem"))] } }"
        // The reload also adds a reachability target: its evaluation is recorded without a restart.
        try (configText(extraTarget: second) + "\nreachability: { targets: [127.0.0.2] }\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.processIdentifier, SIGHUP)
        try waitUntil("the reloaded target to be probed", timeout: 10) { self.target("second", feed: feedPort)?["status"] as? String == "up" }

        // The export after all this validates against the schema.
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 0)
        let export = try ProcessRunner.run(["export", "--config", config, "--output", directory.path("export.json")],
                                           currentDirectory: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        try SchemaValidator.assertValid(directory.path("export.json"), ndjson: false)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.url.appendingPathComponent("export.json")))
        let changes = (document as? [String: Any])?["reachability"] as? [[String: Any]] ?? []
        XCTAssertTrue(changes.contains { $0["target"] as? String == "127.0.0.2" },
                      "a reachability target added by SIGHUP is recorded: \(changes.compactMap { $0["target"] })")
    }

    // MARK: Captive portal

    /// A "portal" answering 200 where 204 is expected: `default` becomes NotReachable with interventionRequired,
    /// and the feed shows `portal`; when the network answers 204 again, the flag clears.
    func testCaptivePortalMakesDefaultNotReachable() throws {
        directory = try TemporaryDirectory()
        let portalPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        let script = try directory.write("portal.py", """
            import os, sys
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            base = sys.argv[2]
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    portal = os.path.exists(os.path.join(base, "portal-on"))
                    body = b"<html>Sign in to the hotel Wi-Fi</html>" if portal else b""
                    self.send_response(200 if portal else 204)
                    self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """)
        _ = FileManager.default.createFile(atPath: directory.path("portal-on"), contents: nil)
        let portal = Process()
        portal.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        portal.arguments = [script, "\(portalPort)", directory.url.path]
        try portal.run()
        processes.append(portal)
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            reachability:
              captive_portal: { url: "http://127.0.0.1:\(portalPort)/generate_204", expect_status: 204, interval: 1s }
            """)
        _ = try startDaemon(config: config)
        func defaultEntry() -> [String: Any]? {
            (status(feed: feedPort)?["reachability"] as? [[String: Any]])?.first { $0["target"] as? String == "default" }
        }
        try waitUntil("a portal verdict", timeout: 20) {
            (self.status(feed: feedPort)?["captive_portal"] as? [String: Any])?["state"] as? String == "portal"
        }
        try waitUntil("default to be NotReachable with interventionRequired", timeout: 5) {
            guard let entry = defaultEntry() else { return false }
            return entry["status"] as? String == "NotReachable"
                && (entry["flags"] as? [String])?.contains("interventionRequired") == true
        }
        try FileManager.default.removeItem(atPath: directory.path("portal-on"))
        try waitUntil("the portal to clear", timeout: 5) {
            (self.status(feed: feedPort)?["captive_portal"] as? [String: Any])?["state"] as? String == "free"
                && (defaultEntry()?["flags"] as? [String])?.contains("interventionRequired") == false
        }
    }
}
