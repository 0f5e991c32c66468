import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon probing TLS services: a pinned smtp:// target on a real Postfix is up with its pin matched, a
/// STARTTLS-stripping peer is down with `starttlsUnavailable`, and the history export carries the scheme.
final class DaemonServiceTargetTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var processes: [Process] = []
    private var postfix: ServiceProcess?

    override func tearDown() {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        processes = []
        postfix?.stop()
        postfix = nil
    }

    /// A python3 SMTP peer that greets and answers EHLO without STARTTLS (a stripping middlebox).
    private func startStrippingPeer(port: Int) throws {
        let script = """
            import socket, sys, threading
            listener = socket.create_server(("127.0.0.1", int(sys.argv[1])))
            def serve(client):
                with client:
                    f = client.makefile("rb")
                    client.sendall(b"220 stripped ESMTP\\r\\n")
                    while f.readline():
                        client.sendall(b"250-stripped\\r\\n250 AUTH PLAIN\\r\\n")
            while True:
                client, _ = listener.accept()
                threading.Thread(target=serve, args=(client,), daemon=True).start()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, String(port)]
        try process.run()
        processes.append(process)
        let deadline = Date().addingTimeInterval(10)
        while !ProcessRunner.accepts(port: port), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    private func target(_ name: String, feed: Int) -> [String: Any]? {
        guard let (status, body) = try? ProcessRunner.curl("http://127.0.0.1:\(feed)/v1/status"), status == 200,
              let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (json["targets"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    func testSMTPTargetsInTheDaemon() throws {
        directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil smtp CA", leaves: [("mail", "/CN=127.0.0.1")])
        postfix = try ServiceProcess.postfix(certificate: directory.path("mail.pem"), key: directory.path("mail.key"))
        let smtpPort = try XCTUnwrap(postfix).port("smtp")
        let strippedPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try startStrippingPeer(port: strippedPort)
        let pin = try pki.pin(of: "mail")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - name: mx
                url: smtp://127.0.0.1:\(smtpPort)
                interval: 1s
                timeout: 5s
                tls: { pinning: publicKey, pins: ["\(pin)", "\(backup)"], ca: [\(directory.path("ca.pem"))] }
              - name: stripped
                url: smtp://127.0.0.1:\(strippedPort)
                interval: 1s
                timeout: 3s
                tls: { ca: [\(directory.path("ca.pem"))] }
            """)
        let (daemon, log) = try DaemonProcess.start(config: config, in: directory)
        processes.append(daemon)

        let deadline = Date().addingTimeInterval(30)
        var mx: [String: Any]?, stripped: [String: Any]?
        while Date() < deadline, daemon.isRunning {
            mx = target("mx", feed: feedPort)
            stripped = target("stripped", feed: feedPort)
            if mx?["status"] as? String == "up", stripped?["status"] as? String == "down" { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(mx?["status"] as? String, "up", "\(String(describing: mx)) \(logText.suffix(2_000))")
        XCTAssertEqual(stripped?["status"] as? String, "down", "\(String(describing: stripped))")
        XCTAssertTrue("\(String(describing: stripped))".contains("starttlsUnavailable"), "\(String(describing: stripped))")

        let export = try ProcessRunner.run(["export", "--config", config, "--target", "mx", "--format", "ndjson"],
                                           currentDirectory: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let rows = export.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "probe" }
        let row = try XCTUnwrap(rows.first(where: { $0["outcome"] as? String == "ok" }), export.stdout.prefix(1_000).description)
        XCTAssertEqual(row["pin_verdict"] as? String, "matched")
        XCTAssertEqual((row["details"] as? [String: Any])?["scheme"] as? String, "smtp")
        try SchemaValidator.assertValid(text: export.stdout, ndjson: true)
    }
}
