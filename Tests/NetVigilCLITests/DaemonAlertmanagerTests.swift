import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon with an `alertmanager:` sink and a real Alertmanager: a pin mismatch becomes an Alertmanager
/// notification, stays active through the daemon's re-sends, and resolves when the pinned key is back.
final class DaemonAlertmanagerTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var daemon: Process?
    private var nginx: NginxProcess?

    override func tearDown() {
        if let daemon, daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        nginx?.stop()
    }

    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func waitUntil(_ what: String, timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let log = (try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)) ?? ""
        XCTFail("timed out after \(timeout) s waiting for \(what); daemon log tail:\n\(log.suffix(3_000))")
        throw XCTSkip("aborted: \(what)")
    }

    func testAPinMismatchReachesAlertmanagerStaysActiveThroughResendsAndResolves() throws {
        guard AlertmanagerProcess.isInstalled else {
            return XCTFail("prometheus-alertmanager missing: make test installs the Debian package")
        }
        directory = try TemporaryDirectory()
        let alertmanager = try AlertmanagerProcess(directory: directory) { receiver in
            """
            route: { receiver: hook, group_by: [alertname, target], group_wait: 1s, group_interval: 1s, repeat_interval: 1h }
            receivers: [{ name: hook, webhook_configs: [{ url: "\(receiver)/hook", send_resolved: true }] }]
            """
        }
        let pki = try LoopbackPKI(in: directory, caName: "netvigil am CA", leaves: [("a", "/CN=127.0.0.1"), ("b", "/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let tlsPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("b", nginx: nil)  // the wrong key from the start
        let nginx = try NginxProcess(prefix: directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(directory.path("served.pem"));
                    ssl_certificate_key \(directory.path("served.key"));
                    location = /health { return 200 'UP'; }
                }
            """, ports: [tlsPort])
        self.nginx = nginx
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                tls: { pinning: publicKey, pins: ["\(pinA)", "\(backup)"], ca: [\(directory.path("ca.pem"))] }
            alerts:
              sinks: [{ name: am, alertmanager: { url: "\(alertmanager.url)", labels: { site: test1 }, resend_interval: 1s } }]
              retry: { initial: 200ms, max: 1s }
              rules:
                pin_mismatch: { threshold: 1, reminder: 6h, send_resolved: true }
                target_down: { threshold: 1000 }
            """)
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let process = Process()
        process.executableURL = ProcessRunner.binary
        process.arguments = ["run", "--config", config]
        process.currentDirectoryURL = directory.url
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        daemon = process

        try waitUntil("a firing notification", timeout: 20) { try alertmanager.notifications().contains { $0.status == "firing" } }
        let labels = try XCTUnwrap(try alertmanager.notifications().first?.alertLabels.first)
        XCTAssertEqual(labels, ["alertname": "NetvigilPinMismatch", "severity": "critical", "target": "api",
                                "instance": Self.hostName, "site": "test1"])
        // Each send is valid for 3 s; 7 s later the alert is still active because the daemon re-sends it.
        Thread.sleep(forTimeInterval: 7)
        XCTAssertEqual(try alertmanager.alerts().count, 1, "still active in Alertmanager")
        XCTAssertEqual(try alertmanager.notifications().map(\.status), ["firing"])

        try pki.serve("a", nginx: nginx)
        try waitUntil("a resolved notification", timeout: 20) { try alertmanager.notifications().contains { $0.status == "resolved" } }
        XCTAssertEqual(try alertmanager.alerts().count, 0)
    }
}
