import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon with `addresses: all` on a target whose two edges (127.0.0.1 and 127.0.0.2, same port) serve
/// different keys: the pin_mismatch alert names only the rogue edge and its report carries that edge's chain;
/// `/v1/status` lists each address.
final class EveryAddressDaemonTests: XCTestCase {
    func testPinMismatchAlertNamesTheRogueAddress() throws {
        let directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil edges CA", leaves: [("good", "/CN=edge.test"), ("rogue", "/CN=edge.test")],
                                  subjectAltName: "DNS:edge.test")
        let port = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        func site(_ address: String, _ leaf: String) -> String {
            """
            server {
                listen \(address):\(port) ssl;
                ssl_certificate \(directory.path("\(leaf).pem"));
                ssl_certificate_key \(directory.path("\(leaf).key"));
                location / { default_type text/plain; return 200 '\(leaf)'; }
            }
            """
        }
        let nginx = try NginxProcess(prefix: directory.path("nginx"), servers: site("127.0.0.1", "good") + site("127.0.0.2", "rogue"), ports: [port])
        defer { nginx.stop() }
        let backup = "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - name: edge
                url: https://edge.test:\(port)/
                interval: 1s
                timeout: 5s
                addresses: all
                connect_to: [127.0.0.1, 127.0.0.2]
                tls: { pinning: publicKey, pins: ["\(try pki.pin(of: "good"))", "\(backup)"], ca: [\(directory.path("ca.pem"))] }
            alerts:
              sinks: [{ name: file, exec: { command: [/bin/sh, -c, "cat >> \(directory.path("alerts.ndjson"))"] } }]
              rules:
                pin_mismatch: { threshold: 1 }
            """)
        let (daemon, log) = try DaemonProcess.start(config: config, in: directory)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        let alert = try DaemonProcess.firingAlert(kind: "pin_mismatch", in: directory.path("alerts.ndjson"), daemon: daemon, log: log)
        let addresses = try DaemonProcess.pinMismatchEntries(alert, naming: "at 127.0.0.2", notNaming: "127.0.0.1",
                                                             leafPEM: directory.path("rogue.pem"))
        XCTAssertEqual(addresses.map { $0["address"] as? String }, ["127.0.0.2"])

        let status = try ProcessRunner.run(["status", "--feed", "http://127.0.0.1:\(feedPort)"])
        XCTAssertTrue(status.stdout.contains("edge addresses: 127.0.0.1 up, 127.0.0.2 down (trust, pin mismatch)"), status.stdout + status.stderr)
        let json = try ProcessRunner.run(["status", "--feed", "http://127.0.0.1:\(feedPort)", "--json"])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        let target = try XCTUnwrap((document["targets"] as? [[String: Any]])?.first)
        XCTAssertEqual(target["status"] as? String, "down")
        let entries = try XCTUnwrap(target["addresses"] as? [[String: Any]], "\(target)")
        XCTAssertEqual(entries.map { $0["status"] as? String }, ["up", "down"])
        XCTAssertEqual(entries.map { $0["pin_verdict"] as? String }, ["matched", "mismatch"])
    }
}
