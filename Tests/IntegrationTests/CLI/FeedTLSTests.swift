import Foundation
import NetVigilTestSupport
import XCTest

/// `feed.tls`: the real daemon serves its feed over HTTPS (OpenSSL 3 through netvigil's own TLS handler), a real
/// Prometheus scrapes `/metrics` over it with a bearer token and with a client certificate, `netvigil status` reads
/// it, and SIGHUP serves a renewed certificate without a restart.
final class FeedTLSTests: XCTestCase {
    private static let prometheusBinary = "/usr/bin/prometheus"
    private struct WaitFailed: Error, CustomStringConvertible { let description: String }
    private var directory: TemporaryDirectory!
    private var processes: [Process] = []

    override func tearDown() {
        ProcessRunner.stopAll(processes)
        processes.removeAll()
        directory = nil
    }

    // MARK: Scenarios

    func testHTTPSFeedWithATokenForCurlStatusAndPrometheusAndARenewedCertificateOnSIGHUP() throws {
        directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil feed test CA",
                                  leaves: [("feed", "/CN=feed one"), ("renewed", "/CN=feed two")])
        try pki.serve("feed", nginx: nil)
        let port = ProcessRunner.freePort()
        let token = try directory.write("token", "feed-tls-token\n")
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(port), token_file: token, tls: { certificate: served.pem, key: served.key } }
            reachability: { targets: [127.0.0.1] }
            """)
        let daemon = try startDaemon(config: config)
        let base = "https://127.0.0.1:\(port)"
        try waitUntil("the HTTPS feed answers") { try self.curl("\(base)/healthz").status == 200 }

        XCTAssertEqual(try curl("\(base)/metrics").status, 401, "the token is still required")
        let metrics = try curl("\(base)/metrics", headers: ["Authorization: Bearer feed-tls-token"])
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains("netvigil_build_info"), metrics.body)
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)/healthz", caFile: nil).status, 0, "plain HTTP gets no answer")
        XCTAssertEqual(try curl("\(base)/healthz", caFile: nil).status, 0, "an unknown CA is refused by curl")
        XCTAssertEqual(try servedSubject(port: port), "CN = feed one")

        // netvigil status: with --ca, and without it (the feed's certificate is not in the system roots).
        let status = try ProcessRunner.run(["status", "--feed", base, "--ca", directory.path("ca.pem"), "--token-file", token])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("127.0.0.1"), status.stdout)
        let untrusted = try ProcessRunner.run(["status", "--feed", base, "--token-file", token])
        XCTAssertEqual(untrusted.status, 74, untrusted.stdout)
        XCTAssertTrue(untrusted.stderr.contains("cannot reach the feed at \(base)"), untrusted.stderr)

        // Prometheus over HTTPS with the bearer token.
        let prometheusPort = try startPrometheus(job: """
              - job_name: netvigil
                scheme: https
                tls_config: { ca_file: \(directory.path("ca.pem")) }
                authorization: { type: Bearer, credentials_file: \(token) }
                static_configs: [{ targets: ["127.0.0.1:\(port)"] }]
            """)
        try waitUntil("Prometheus scrapes the HTTPS feed", timeout: 40) {
            try self.upValue(prometheusPort: prometheusPort) == "1"
        }

        // A renewed certificate and key in the same files: SIGHUP serves it to new connections.
        try pki.serve("renewed", nginx: nil)
        kill(daemon.processIdentifier, SIGHUP)
        try waitUntil("the renewed certificate is served") { try self.servedSubject(port: port) == "CN = feed two" }
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try curl("\(base)/healthz").status, 200)
    }

    func testClientCertificatesAreRequiredWhenClientCAIsSet() throws {
        directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil feed test CA", leaves: [("feed", "/CN=feed")])
        try pki.serve("feed", nginx: nil)
        try makeClientCertificate(ca: "clients", name: "prometheus")
        try makeClientCertificate(ca: "rogue", name: "intruder")
        let port = ProcessRunner.freePort()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed:
              listen: 127.0.0.1:\(port)
              tls: { certificate: served.pem, key: served.key, client_ca: clients-ca.pem }
            reachability: { targets: [127.0.0.1] }
            """)
        _ = try startDaemon(config: config)
        let base = "https://127.0.0.1:\(port)"
        let client = ["--cert", directory.path("prometheus.pem"), "--key", directory.path("prometheus.key")]
        try waitUntil("the feed answers a client certificate") { try self.curl("\(base)/healthz", extra: client).status == 200 }
        XCTAssertEqual(try curl("\(base)/healthz").status, 0, "no client certificate: no answer")
        XCTAssertEqual(try curl("\(base)/healthz", extra: ["--cert", directory.path("intruder.pem"), "--key", directory.path("intruder.key")]).status,
                       0, "a certificate from another CA: no answer")
        XCTAssertEqual(try curl("\(base)/metrics", extra: client).status, 200)
        let status = try ProcessRunner.run(["status", "--feed", base, "--ca", directory.path("ca.pem")] + client)
        XCTAssertEqual(status.status, 0, status.stderr)
        let refused = try ProcessRunner.run(["status", "--feed", base, "--ca", directory.path("ca.pem")])
        XCTAssertEqual(refused.status, 74, "no client certificate: \(refused.stderr)")

        let prometheusPort = try startPrometheus(job: """
              - job_name: netvigil
                scheme: https
                tls_config:
                  ca_file: \(directory.path("ca.pem"))
                  cert_file: \(directory.path("prometheus.pem"))
                  key_file: \(directory.path("prometheus.key"))
                static_configs: [{ targets: ["127.0.0.1:\(port)"] }]
            """)
        try waitUntil("Prometheus scrapes with its client certificate", timeout: 40) {
            try self.upValue(prometheusPort: prometheusPort) == "1"
        }
    }

    /// Only an end entity fit for client authentication gets in: not the `client_ca` certificate itself (it chains
    /// to itself), not a CA it issued, not a certificate whose extendedKeyUsage leaves out clientAuth.
    func testTheClientCAItselfAndOtherCertificatesUnfitForClientsAreRefused() throws {
        directory = try TemporaryDirectory()
        let pki = try LoopbackPKI(in: directory, caName: "netvigil feed test CA", leaves: [("feed", "/CN=feed")])
        try pki.serve("feed", nginx: nil)
        try makeClientCertificate(ca: "clients", name: "prometheus")
        try makeClientCertificate(ca: "clients", name: "no-eku", extensions: "basicConstraints=CA:FALSE\n")
        try makeClientCertificate(ca: "clients", name: "server-only", extensions: "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try makeClientCertificate(ca: "clients", name: "issuing-ca",
                                  extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\n")
        let port = ProcessRunner.freePort()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed:
              listen: 127.0.0.1:\(port)
              tls: { certificate: served.pem, key: served.key, client_ca: clients-ca.pem }
            reachability: { targets: [127.0.0.1] }
            """)
        _ = try startDaemon(config: config)
        let base = "https://127.0.0.1:\(port)"
        func with(_ name: String) -> [String] { ["--cert", directory.path("\(name).pem"), "--key", directory.path("\(name).key")] }
        try waitUntil("the feed answers a client certificate") { try self.curl("\(base)/healthz", extra: with("prometheus")).status == 200 }
        XCTAssertEqual(try curl("\(base)/healthz", extra: with("no-eku")).status, 200, "an end entity without extendedKeyUsage is a client")
        XCTAssertEqual(try curl("\(base)/healthz", extra: with("clients-ca")).status, 0, "the client CA's own certificate: no answer")
        XCTAssertEqual(try curl("\(base)/healthz", extra: with("issuing-ca")).status, 0, "a CA the client CA issued: no answer")
        XCTAssertEqual(try curl("\(base)/healthz", extra: with("server-only")).status, 0, "extendedKeyUsage without clientAuth: no answer")
        XCTAssertEqual(try curl("\(base)/metrics", extra: with("prometheus")).status, 200)
    }

    func testStatusConfigUsesHTTPSAndTrustsASelfSignedFeedCertificate() throws {
        directory = try TemporaryDirectory()
        let result = try ProcessRunner.run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                            "-days", "30", "-subj", "/CN=netvigil feed", "-addext", "subjectAltName=IP:127.0.0.1",
                                            "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
                                            "-keyout", directory.path("feed.key"), "-out", directory.path("feed.pem")],
                                           executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        XCTAssertEqual(result.status, 0, result.stderr)
        let port = ProcessRunner.freePort()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(port), tls: { certificate: feed.pem, key: feed.key } }
            reachability: { targets: [127.0.0.1] }
            """)
        _ = try startDaemon(config: config)
        try waitUntil("the HTTPS feed answers") {
            try self.curl("https://127.0.0.1:\(port)/healthz", caFile: self.directory.path("feed.pem")).status == 200
        }
        let status = try ProcessRunner.run(["status", "--config", config, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("\"reachability\""), status.stdout)
    }

    // MARK: Helpers

    private func startDaemon(config: String) throws -> Process {
        let (process, _) = try DaemonProcess.start(config: config, in: directory)
        processes.append(process)
        return process
    }

    private func startPrometheus(job: String) throws -> Int {
        guard FileManager.default.isExecutableFile(atPath: Self.prometheusBinary) else {
            throw XCTSkip("\(Self.prometheusBinary) missing: install the Debian package prometheus (make test does)")
        }
        let port = ProcessRunner.freePort()
        let config = try directory.write("prometheus.yml", """
            global: { scrape_interval: 1s, scrape_timeout: 1s }
            scrape_configs:
            \(job)
            """)
        let log = directory.path("prometheus.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.prometheusBinary)
        process.arguments = ["--config.file=\(config)", "--storage.tsdb.path=\(directory.path("tsdb"))",
                             "--web.listen-address=127.0.0.1:\(port)"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = process.standardOutput
        try process.run()
        processes.append(process)
        return port
    }

    /// The value of `up{job="netvigil"}` in Prometheus, nil while it has none.
    private func upValue(prometheusPort: Int) throws -> String? {
        let (status, body) = try ProcessRunner.curl("http://127.0.0.1:\(prometheusPort)/api/v1/query?query=up")
        guard status == 200, let envelope = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let result = (envelope["data"] as? [String: Any])?["result"] as? [[String: Any]],
              let value = result.first?["value"] as? [Any] else { return nil }
        return value.last as? String
    }

    /// curl's status code (0 when no HTTP answer came) and body; trusts the test CA unless told otherwise.
    private func curl(_ url: String, caFile: String?? = .some(nil), headers: [String] = [], extra: [String] = []) throws -> (status: Int, body: String) {
        var arguments = ["-s", "-m", "5", "-w", "\n%{http_code}"]
        switch caFile {
        case .some(.some(let file)): arguments += ["--cacert", file]
        case .some(.none): arguments += ["--cacert", directory.path("ca.pem")]
        case .none: break
        }
        for header in headers { arguments += ["-H", header] }
        let result = try ProcessRunner.run(arguments + extra + [url], executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 10)
        var lines = result.stdout.components(separatedBy: "\n")
        let code = Int(lines.removeLast()) ?? 0
        return (code, lines.joined(separator: "\n"))
    }

    /// The subject of the certificate the feed serves to a new connection (`CN = …`).
    private func servedSubject(port: Int) throws -> String {
        let script = "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -subject -nameopt oneline"
        let result = try ProcessRunner.run(["-c", script], executable: URL(fileURLWithPath: "/bin/sh"), timeout: 10)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "subject=", with: "")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `CA-ca.pem` (made unless it exists) and a certificate `NAME.pem`/`NAME.key` it issued with `extensions`
    /// (by default a client's: not a CA, extendedKeyUsage clientAuth).
    private func makeClientCertificate(ca: String, name: String,
                                       extensions text: String = "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n") throws {
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        let extensions = try directory.write("\(name).ext", text)
        var steps: [[String]] = []
        if !FileManager.default.fileExists(atPath: directory.path("\(ca)-ca.pem")) {
            steps.append(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30", "-subj", "/CN=\(ca) CA",
                          "-keyout", directory.path("\(ca)-ca.key"), "-out", directory.path("\(ca)-ca.pem")])
        }
        for arguments in steps + [
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(name)",
             "-keyout", directory.path("\(name).key"), "-out", directory.path("\(name).csr")],
            ["x509", "-req", "-in", directory.path("\(name).csr"), "-CA", directory.path("\(ca)-ca.pem"), "-CAkey",
             directory.path("\(ca)-ca.key"), "-CAcreateserial", "-days", "30", "-extfile", extensions, "-out", directory.path("\(name).pem")],
        ] {
            let result = try ProcessRunner.run(arguments, executable: openssl)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? condition()) == true { return }
            if let exited = processes.first(where: { !$0.isRunning }) {
                let log = (try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)) ?? ""
                throw WaitFailed(description: "\(exited.executableURL?.lastPathComponent ?? "?") exited while waiting for \(what)\n\(log.suffix(2000))")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let log = (try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8)) ?? ""
        let prometheus = (try? String(contentsOfFile: directory.path("prometheus.log"), encoding: .utf8)) ?? ""
        throw WaitFailed(description: "timed out after \(Int(timeout)) s waiting for \(what)\n\(log.suffix(2000))\n\(prometheus.suffix(1500))")
    }
}
