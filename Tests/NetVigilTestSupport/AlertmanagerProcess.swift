import Foundation

/// A real Alertmanager (Debian `prometheus-alertmanager`) on loopback for one test, with a webhook receiver
/// (python3) that records every notification it gets. `stop()` and `start()` again simulate an outage; silences
/// survive it (the storage directory is kept), alerts do not (Alertmanager keeps them in memory).
public final class AlertmanagerProcess {
    public static let executable = "/usr/bin/prometheus-alertmanager"
    public static let amtoolPath = "/usr/bin/amtool"
    /// Whether the Debian packages are installed (`make test` installs them).
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: executable) && FileManager.default.isExecutableFile(atPath: amtoolPath)
    }

    /// One notification the receiver got.
    public struct Notification {
        /// The receiver's URL path, e.g. `/pager`.
        public var path: String
        /// The decoded webhook body (`status`, `groupLabels`, `alerts`, ...).
        public var body: [String: Any]

        /// `status` of the notification: `firing` or `resolved`.
        public var status: String { body["status"] as? String ?? "" }
        /// The label sets of its alerts.
        public var alertLabels: [[String: String]] {
            (body["alerts"] as? [[String: Any]] ?? []).map { $0["labels"] as? [String: String] ?? [:] }
        }
    }

    public let port: Int
    /// `http://127.0.0.1:PORT` of Alertmanager.
    public var url: String { "http://127.0.0.1:\(port)" }
    private let directory: TemporaryDirectory
    private let configPath: String
    private let receiver: Process
    private var alertmanager: Process?

    /// Starts the receiver and Alertmanager with the configuration `configuration(receiverURL)` returns
    /// (`receiverURL` is `http://127.0.0.1:PORT`; a receiver's path is recorded with each notification), and waits
    /// until Alertmanager is ready.
    public init(directory: TemporaryDirectory, configuration: (String) -> String) throws {
        self.directory = directory
        let receiverPort = ProcessRunner.freePort()
        port = ProcessRunner.freePort()
        let script = try directory.write("receiver.py", """
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
        receiver = try Self.launch("/usr/bin/python3", [script, "\(receiverPort)", directory.path("received.jsonl")],
                                   log: directory.path("processes.log"))
        configPath = try directory.write("alertmanager.yml", configuration("http://127.0.0.1:\(receiverPort)"))
        do {
            try start()
        } catch {
            stop()
            ProcessRunner.stop(receiver)
            throw error
        }
    }

    deinit {
        stop()
        ProcessRunner.stop(receiver)
    }

    /// Starts Alertmanager (again) and waits until `/-/ready` answers.
    public func start(timeout: TimeInterval = 20) throws {
        guard alertmanager == nil else { return }
        alertmanager = try Self.launch(Self.executable, [
            "--config.file=\(configPath)", "--storage.path=\(directory.path("data"))",
            "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address=",
        ], log: directory.path("processes.log"))
        let deadline = Date().addingTimeInterval(timeout)
        while try curl(["-f", "\(url)/-/ready"]).status != 0 {
            guard Date() < deadline else {
                throw AlertmanagerError(message: "Alertmanager did not become ready: \(log.suffix(2_000))")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// Stops Alertmanager (SIGTERM, SIGKILL after 5 s); the receiver keeps running.
    public func stop() {
        if let alertmanager { ProcessRunner.stop(alertmanager) }
        alertmanager = nil
    }

    /// The output of both processes so far.
    public var log: String { (try? String(contentsOfFile: directory.path("processes.log"), encoding: .utf8)) ?? "" }

    /// Every notification received so far, oldest first.
    public func notifications() throws -> [Notification] {
        let text = (try? String(contentsOfFile: directory.path("received.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            guard let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw AlertmanagerError(message: "receiver wrote a line that is not an object: \(line)")
            }
            return Notification(path: entry["path"] as? String ?? "", body: entry["body"] as? [String: Any] ?? [:])
        }
    }

    /// Polls until `condition` holds for the notifications received (true) or `timeout` passes (false).
    public func waitForNotifications(timeout: TimeInterval = 30, _ condition: ([Notification]) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(try notifications()) { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return condition(try notifications())
    }

    /// The alerts Alertmanager holds now (`GET /api/v2/alerts`: active, silenced and inhibited ones).
    public func alerts() throws -> [[String: Any]] {
        let result = try curl(["-f", "\(url)/api/v2/alerts"])
        guard result.status == 0, let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] else {
            throw AlertmanagerError(message: "GET /api/v2/alerts failed: \(result.stderr)")
        }
        return list
    }

    /// POSTs a JSON array of alerts to `/api/v2/alerts`.
    public func post(alerts json: String) throws -> ProcessRunner.Result {
        let body = try directory.write("posted-alerts.json", json)
        return try curl(["-f", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(body)",
                         "\(url)/api/v2/alerts"])
    }

    /// Runs `amtool` against this Alertmanager, e.g. `["silence", "add", "target=api", "--comment=maintenance"]`.
    public func amtool(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(arguments + ["--alertmanager.url=\(url)"], executable: URL(fileURLWithPath: Self.amtoolPath),
                              timeout: 20)
    }

    private func curl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["-s", "-m", "5"] + arguments, executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 10)
    }

    private static func launch(_ executable: String, _ arguments: [String], log logPath: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return process
    }
}

/// A failure of the test Alertmanager.
public struct AlertmanagerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
