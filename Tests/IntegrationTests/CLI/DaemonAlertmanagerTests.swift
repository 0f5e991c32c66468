import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon with an `alertmanager:` sink and a real Alertmanager: a pin mismatch becomes an Alertmanager
/// notification, stays active through the daemon's re-sends, and resolves when the pinned key is back.
final class DaemonAlertmanagerTests: XCTestCase {
    private var daemon: DaemonUnderTest?
    private var nginx: NginxProcess?

    override func tearDown() {
        daemon?.tearDown()
        nginx?.stop()
    }

    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func testAPinMismatchReachesAlertmanagerStaysActiveThroughResendsAndResolves() throws {
        guard AlertmanagerProcess.isInstalled else {
            return XCTFail("prometheus-alertmanager missing: make test installs the Debian package")
        }
        let daemon = try DaemonUnderTest()
        self.daemon = daemon
        let directory = daemon.directory
        let alertmanager = try AlertmanagerProcess(directory: directory) { receiver in
            """
            route: { receiver: hook, group_by: [alertname, target], group_wait: 1s, group_interval: 1s, repeat_interval: 1h }
            receivers: [{ name: hook, webhook_configs: [{ url: "\(receiver)/hook", send_resolved: true }] }]
            """
        }
        let pki = try LoopbackPKI(in: directory, caName: "netvigil am CA", leaves: [("a", "/CN=127.0.0.1"), ("b", "/CN=127.0.0.1")])
        let pins = [try pki.pin(of: "a"), "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()]
        let tlsPort = ProcessRunner.freePort()
        try pki.serve("b", nginx: nil)  // the wrong key from the start
        let nginx = try NginxProcess(prefix: directory.path("nginx"), servers: """
            server { listen 127.0.0.1:\(tlsPort) ssl; ssl_certificate \(directory.path("served.pem"));
                     ssl_certificate_key \(directory.path("served.key")); location = /health { return 200 'UP'; } }
            """, ports: [tlsPort])
        self.nginx = nginx
        try daemon.start(config: """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(daemon.feedPort) }
            targets:
              - { name: api, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s,
                  tls: { pinning: publicKey, pins: \(pins), ca: [\(directory.path("ca.pem"))] } }
            alerts:
              sinks: [{ name: am, alertmanager: { url: "\(alertmanager.url)", labels: { site: test1 }, resend_interval: 1s } }]
              retry: { initial: 200ms, max: 1s }
              rules: { pin_mismatch: { threshold: 1, send_resolved: true }, target_down: { threshold: 1000 } }
            """)

        try daemon.waitUntil("a firing notification", timeout: 20) { try alertmanager.notifications().contains { $0.status == "firing" } }
        let labels = try XCTUnwrap(try alertmanager.notifications().first?.alertLabels.first)
        XCTAssertEqual(labels, ["alertname": "NetvigilPinMismatch", "severity": "critical", "target": "api",
                                "instance": Self.hostName, "site": "test1", "endpoint": "https://127.0.0.1:\(tlsPort)/health"])
        // Each send is valid for 3 s; 7 s later the alert is still active because the daemon re-sends it.
        Thread.sleep(forTimeInterval: 7)
        XCTAssertEqual(try alertmanager.alerts().count, 1, "still active in Alertmanager")
        XCTAssertEqual(try alertmanager.notifications().map(\.status), ["firing"])

        try pki.serve("a", nginx: nginx)
        try daemon.waitUntil("a resolved notification", timeout: 20) { try alertmanager.notifications().contains { $0.status == "resolved" } }
        XCTAssertEqual(try alertmanager.alerts().count, 0)
    }
}
