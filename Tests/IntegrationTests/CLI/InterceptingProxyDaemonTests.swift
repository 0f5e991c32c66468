import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon probing a pinned origin through a TLS-intercepting proxy (mitmproxy) whose CA it even trusts: the
/// pin_mismatch alert fires with the interceptor's chain in its report, and the origin never gets a request.
final class InterceptingProxyDaemonTests: XCTestCase {
    func testPinMismatchAlertCarriesTheInterceptorsChain() throws {
        let directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil proxy e2e CA", leaves: [("origin", "/CN=127.0.0.1")])
        let originPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        let origin = try NginxProcess(prefix: directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(originPort) ssl;
                    ssl_certificate \(directory.path("origin.pem"));
                    ssl_certificate_key \(directory.path("origin.key"));
                    access_log \(directory.path("origin-access.log"));
                    location = /health { default_type application/json; return 200 '{"status":"UP"}'; }
                }
            """, ports: [originPort])
        defer { origin.stop() }
        let interceptor = try MitmproxyProcess(upstreamCA: directory.path("ca.pem"))
        defer { interceptor.stop() }
        let backup = "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            proxy: \(interceptor.url)
            targets:
              - name: api
                url: https://127.0.0.1:\(originPort)/health
                interval: 1s
                timeout: 5s
                tls: { pinning: publicKey, pins: ["\(try pki.pin(of: "origin"))", "\(backup)"],
                       ca: [\(directory.path("ca.pem")), \(interceptor.caCertificatePath)] }
            alerts:
              sinks: [{ name: file, exec: { command: [/bin/sh, -c, "cat >> \(directory.path("alerts.ndjson"))"] } }]
              rules:
                pin_mismatch: { threshold: 1 }
                trust_failure: { threshold: 1000 }
                target_down: { threshold: 1000 }
            """)
        let (daemon, log) = try DaemonProcess.start(config: config, in: directory)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        let alert = try DaemonProcess.firingAlert(kind: "pin_mismatch", in: directory.path("alerts.ndjson"), daemon: daemon, log: log)
        let report = try XCTUnwrap(alert["report"] as? [String: Any])
        let served = try XCTUnwrap((report["served-certificate-chain"] as? [String])?.first)
        let originPEM = try String(contentsOfFile: directory.path("origin.pem"), encoding: .utf8)
        XCTAssertNotEqual(served.trimmingCharacters(in: .whitespacesAndNewlines), originPEM.trimmingCharacters(in: .whitespacesAndNewlines))
        let issuer = try ProcessRunner.run(["x509", "-noout", "-issuer", "-in", try directory.write("served.pem", served)],
                                           executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        XCTAssertTrue(issuer.stdout.contains("mitmproxy"), "served leaf issuer: \(issuer.stdout)")
        let originLog = (try? String(contentsOfFile: directory.path("origin-access.log"), encoding: .utf8)) ?? ""
        XCTAssertFalse(originLog.contains("/health"), "the origin got a request: \(originLog)")
    }
}
