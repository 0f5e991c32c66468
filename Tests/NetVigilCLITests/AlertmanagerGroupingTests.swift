import Foundation
import NetVigilTestSupport
import XCTest

/// deploy/alertmanager.example.yml in a real Alertmanager (Debian `prometheus-alertmanager`, started on loopback):
/// one endpoint failing for many agents is one notification, and a pin mismatch inhibits TargetDown.
final class AlertmanagerGroupingTests: XCTestCase {
    var directory: TemporaryDirectory!
    private var processes: [Process] = []

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        processes = []
        directory = nil
    }

    private func start(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let logPath = directory.path("processes.log")
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        processes.append(process)
    }

    func curl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["-s", "-m", "5"] + arguments, executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 10)
    }

    /// The notifications the webhook receiver got, as (path, decoded body).
    func notifications() throws -> [(path: String, body: [String: Any])] {
        let text = (try? String(contentsOfFile: directory.path("received.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let entry = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (entry["path"] as? String ?? "", entry["body"] as? [String: Any] ?? [:])
        }
    }

    /// Why the example Alertmanager could not be run.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the webhook receiver and the example Alertmanager on loopback; returns Alertmanager's port.
    func startExampleAlertmanager() throws -> Int {
        let alertmanager = "/usr/bin/prometheus-alertmanager"
        guard FileManager.default.isExecutableFile(atPath: alertmanager) else {
            throw Unavailable(description: "prometheus-alertmanager missing: make test installs the Debian package")
        }
        let receiverPort = ProcessRunner.freePort(), port = ProcessRunner.freePort()
        let receiver = try directory.write("receiver.py", """
            import json, sys
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_POST(self):
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                    with open(sys.argv[2], "a") as out:
                        out.write(json.dumps({"path": self.path, "body": body}) + "\\n")
                    self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
            ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """)
        try start("/usr/bin/python3", [receiver, "\(receiverPort)", directory.path("received.jsonl")])

        // The example as shipped, with the receivers pointed at the test's webhook and the group waits shortened so
        // the test does not wait 30 s; grouping, routes and inhibition are untouched.
        let example = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/alertmanager.example.yml")
        var config = try String(contentsOf: example, encoding: .utf8)
        config = config.replacingOccurrences(of: "http://127.0.0.1:5001/", with: "http://127.0.0.1:\(receiverPort)/")
        config = config.replacingOccurrences(of: "group_wait: 30s", with: "group_wait: 2s")
            .replacingOccurrences(of: "group_wait: 10s", with: "group_wait: 2s")
        let configPath = try directory.write("alertmanager.yml", config)
        try start(alertmanager, ["--config.file=\(configPath)", "--storage.path=\(directory.path("data"))",
                                 "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address="])
        let deadline = Date().addingTimeInterval(20)
        while (try curl(["-f", "http://127.0.0.1:\(port)/-/ready"])).status != 0 {
            guard Date() < deadline else {
                let log = (try? String(contentsOfFile: directory.path("processes.log"), encoding: .utf8)) ?? ""
                throw Unavailable(description: "Alertmanager did not become ready: \(log.suffix(2_000))")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return port
    }

    /// Posts alerts to Alertmanager's v2 API.
    func post(_ alerts: [[String: Any]], port: Int) throws {
        let body = try directory.write("alerts.json", String(decoding: try JSONSerialization.data(withJSONObject: alerts), as: UTF8.self))
        let posted = try curl(["-f", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(body)",
                               "http://127.0.0.1:\(port)/api/v2/alerts"])
        XCTAssertEqual(posted.status, 0, posted.stdout + posted.stderr)
    }

    func testOneEndpointFailingForManyAgentsIsOneNotificationAndAPinMismatchInhibitsTargetDown() throws {
        let port = try startExampleAlertmanager()

        // Five agents see target api fail, one of them (web1) because of a pin mismatch; one agent sees db fail.
        func alert(_ name: String, _ severity: String, instance: String, target: String) -> [String: Any] {
            ["labels": ["alertname": name, "severity": severity, "instance": instance, "target": target, "job": "netvigil"],
             "annotations": ["summary": "\(name) \(target) from \(instance)"]]
        }
        var alerts = (1...5).map { alert("NetvigilTargetDown", "warning", instance: "web\($0)", target: "api") }
        alerts.append(alert("NetvigilPinMismatch", "critical", instance: "web1", target: "api"))
        alerts.append(alert("NetvigilTargetDown", "warning", instance: "web1", target: "db"))
        try post(alerts, port: port)

        let waitUntil = Date().addingTimeInterval(30)
        while try notifications().count < 3, Date() < waitUntil { Thread.sleep(forTimeInterval: 0.25) }
        Thread.sleep(forTimeInterval: 3)  // nothing more may come: no per-agent notifications
        let received = try notifications()
        func summary(_ entry: (path: String, body: [String: Any])) -> String {
            let group = entry.body["groupLabels"] as? [String: String] ?? [:]
            let instances = (entry.body["alerts"] as? [[String: Any]] ?? [])
                .compactMap { ($0["labels"] as? [String: String])?["instance"] }.sorted()
            return "\(entry.path) \(group["alertname"] ?? "?") \(group["target"] ?? "?") \(instances.joined(separator: ","))"
        }
        XCTAssertEqual(received.map(summary).sorted(), [
            "/pager NetvigilPinMismatch api web1",
            "/team NetvigilTargetDown api web2,web3,web4,web5",
            "/team NetvigilTargetDown db web1",
        ])
    }
}
