import Foundation
import NetVigilTestSupport
import XCTest

/// `key_changed` with the real binary: nginx swaps to a new key that is just as trusted, the webhook gets one
/// `key_changed` alert with the old and new pin; after a restart the key before it is compared (from the store).
extension DaemonEndToEndTests {
    func testKeyChangedReachesTheWebhookAcrossARestart() throws {
        directory = try TemporaryDirectory()
        pki = try LoopbackPKI(in: directory, caName: "netvigil key-change CA",
                              leaves: [("a", "/CN=127.0.0.1"), ("b", "/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a"), pinB = try pki.pin(of: "b")
        let tlsPort = ProcessRunner.freePort(), hookPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        let nginx = try startNginx(port: tlsPort)
        _ = try startReceiver(port: hookPort)
        // key_changed is off by default: the target turns it on for itself; no pinning, both keys are trusted.
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - { name: api, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s,
                  tls: { ca: [\(directory.path("ca.pem"))] }, rules: { key_changed: { enabled: true } } }
            alerts:
              sinks: [{ name: hook, webhook: { url: "http://127.0.0.1:\(hookPort)/hook", timeout: 2s } }]
              retry: { initial: 200ms, max: 1s }
            """)
        var daemon = try startDaemon(config: config)
        try waitUntil("a first ok probe", timeout: 30) { self.target("api", feed: feedPort)?["status"] as? String == "up" }
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertTrue(hooks().isEmpty, "the first results of a target change nothing: \(hooks())")

        try pki.serve("b", nginx: nginx)
        try waitUntil("a firing key_changed webhook", timeout: 8) { !self.hooks(kind: "key_changed", state: "firing").isEmpty }
        let body = try XCTUnwrap(hooks(kind: "key_changed", state: "firing").first?["body"] as? [String: Any])
        XCTAssertEqual(body["target"] as? String, "api")
        let message = try XCTUnwrap(body["message"] as? String)
        XCTAssertTrue(message.contains("old pin \(pinA), new pin \(pinB)"), message)
        XCTAssertTrue(message.contains("trusted"), message)
        let served = try XCTUnwrap((body["report"] as? [String: Any])?["served-certificate-chain"] as? [String])
        let pemB = try String(contentsOfFile: directory.path("b.pem"), encoding: .utf8)
        XCTAssertEqual(served.first?.trimmingCharacters(in: .whitespacesAndNewlines), pemB.trimmingCharacters(in: .whitespacesAndNewlines))
        // One event: the next results with the same key resolve it quietly (send_resolved is off by default).
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(hooks(kind: "key_changed", state: "firing").count, 1)
        XCTAssertTrue(hooks(kind: "key_changed", state: "resolved").isEmpty)
        XCTAssertEqual(hooks().count, 1, "no other alert: \(hooks())")

        // The key changes back while the daemon is stopped: the first result after the restart is compared with the
        // last one before it.
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 0)
        try pki.serve("a", nginx: nginx)
        Thread.sleep(forTimeInterval: 0.5)
        daemon = try startDaemon(config: config)
        try waitUntil("a key_changed webhook after the restart", timeout: 15) { self.hooks(kind: "key_changed", state: "firing").count >= 2 }
        let second = try XCTUnwrap(hooks(kind: "key_changed", state: "firing").last?["body"] as? [String: Any])
        XCTAssertTrue((second["message"] as? String)?.contains("old pin \(pinB), new pin \(pinA)") == true, "\(second)")
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
    }
}
