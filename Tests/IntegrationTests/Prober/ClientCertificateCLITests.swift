import Foundation
import NetVigilTestSupport
import XCTest

/// mTLS through the real binary: `probe --cert/--key`, `probe --config --target` and `netvigil run` with the client
/// certificate in a shared `tls_policies` entry, and `check-config`'s warning for a key others may read.
final class ClientCertificateCLITests: XCTestCase {
    private var servers: ClientCertificateServers!
    private var pki: TestPKI { .shared }

    override func setUpWithError() throws {
        servers = try ClientCertificateServers()
    }

    override func tearDown() {
        servers?.stop()
        servers = nil
    }

    private func errorKind(_ stdout: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["kind"] as? String
    }

    /// Neither the key nor its password ever appears in what the binary prints.
    private func assertNoSecrets(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let key = try String(contentsOfFile: servers.files("encrypted").key, encoding: .utf8)
        XCTAssertFalse(text.contains("SECRET") || text.contains("PRIVATE KEY") || text.contains(key.dropFirst(40).prefix(40)),
                       text, file: file, line: line)
    }

    func testProbeWithCertAndKeyOptions() throws {
        let url = "https://127.0.0.1:\(servers.tls13Port)/who"
        let encrypted = servers.files("encrypted")
        let ok = try ProcessRunner.run(["probe", url, "--ca", pki.path("ca.crt"), "--cert", encrypted.certificate,
                                        "--key", encrypted.key, "--key-password-file", encrypted.password, "--expect-body-contains", "CN=encrypted"])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        try assertNoSecrets(ok.stdout + ok.stderr)

        let missing = try ProcessRunner.run(["probe", url, "--ca", pki.path("ca.crt"), "--json"])
        XCTAssertEqual(missing.status, 1, missing.stdout)
        XCTAssertEqual(errorKind(missing.stdout), "clientCertificateRequired")

        let noPassword = try ProcessRunner.run(["probe", url, "--ca", pki.path("ca.crt"), "--cert", encrypted.certificate, "--key", encrypted.key])
        XCTAssertEqual(noPassword.status, 65)
        XCTAssertEqual(noPassword.stderr, "netvigil: \(encrypted.key): the private key is encrypted; give its password file "
                       + "(client_key_password_file / --key-password-file)\n")
        let halfGiven = try ProcessRunner.run(["probe", url, "--cert", encrypted.certificate])
        XCTAssertEqual(halfGiven.status, 64, halfGiven.stderr)

        let ecdsa = servers.files("ecdsaP256")
        chmod(ecdsa.key, 0o644)
        defer { chmod(ecdsa.key, 0o600) }
        let shared = try ProcessRunner.run(["probe", url, "--ca", pki.path("ca.crt"), "--cert", ecdsa.certificate, "--key", ecdsa.key])
        XCTAssertEqual(shared.status, 0, shared.stdout + shared.stderr)
        XCTAssertTrue(shared.stderr.contains("warning: client key \(ecdsa.key) is readable by group or others (mode 644)"), shared.stderr)
    }

    func testPinOfATLS12ServerThatRequiresACertificate() throws {
        let server = try OpenSSLServerProcess(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"),
                                              clientCA: servers.clientCA.directory.path("ca.pem"), version: "1.2")
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let without = try ProcessRunner.run(["pin", url, "--ca", pki.path("ca.crt")])
        XCTAssertEqual(without.status, 1)
        XCTAssertTrue(without.stderr.contains("clientCertificateRequired"), without.stderr)
        let rsa = servers.files("rsa")
        let with = try ProcessRunner.run(["pin", url, "--ca", pki.path("ca.crt"), "--json", "--cert", rsa.certificate, "--key", rsa.key])
        XCTAssertEqual(with.status, 0, with.stderr)
        let entries = try JSONSerialization.jsonObject(with: Data(with.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(entries?.first?["subject"] as? String, "CN=localhost", with.stdout)
    }

    func testSharedPolicyEntryCertificateInProbeTargetCheckConfigAndTheDaemon() throws {
        let directory = try TemporaryDirectory()
        let encrypted = servers.files("encrypted")
        let feedPort = ProcessRunner.freePort()
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            tls_policies:
              - hosts: [127.0.0.1]
                client_certificate: \(encrypted.certificate)
                client_key: \(encrypted.key)
                client_key_password_file: \(encrypted.password)
            targets:
              - name: mtls
                url: https://127.0.0.1:\(servers.tls12Port)/who
                interval: 1s
                timeout: 3s
                expect: { body_contains: [CN=encrypted] }
                tls: { ca: [\(pki.path("ca.crt"))] }
            """)
        let probe = try ProcessRunner.run(["probe", "--config", config, "--target", "mtls", "--json"])
        XCTAssertEqual(probe.status, 0, probe.stdout + probe.stderr)
        let conflicting = try ProcessRunner.run(["probe", "--config", config, "--target", "mtls", "--cert", encrypted.certificate])
        XCTAssertEqual(conflicting.status, 64, conflicting.stderr)

        chmod(encrypted.key, 0o640)
        defer { chmod(encrypted.key, 0o600) }
        let check = try ProcessRunner.run(["check-config", config])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("warning: \(config):6:17: tls_policies[0].client_key: client key \(encrypted.key) "
                                            + "is readable by group or others (mode 640)"), check.stdout)
        XCTAssertTrue(check.stdout.contains("client certificate: CN=encrypted"), check.stdout)
        try assertNoSecrets(check.stdout + check.stderr)

        let (daemon, log) = try DaemonProcess.start(config: config, in: directory)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        var state: String? = nil
        while Date() < deadline, daemon.isRunning {
            if let (code, body) = try? ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/status"), code == 200,
               let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
               let target = (object["targets"] as? [[String: Any]])?.first(where: { $0["name"] as? String == "mtls" }) {
                state = target["status"] as? String
                if state == "up" { break }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        kill(daemon.processIdentifier, SIGTERM)
        let stopDeadline = Date().addingTimeInterval(10)
        while daemon.isRunning, Date() < stopDeadline { Thread.sleep(forTimeInterval: 0.05) }
        let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(state, "up", logText.suffix(2_000).description)
        XCTAssertTrue(logText.contains("readable by group or others"), logText.suffix(2_000).description)
        try assertNoSecrets(logText + servers.errorLog)
    }
}
