import Foundation
import NetVigilProber
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilAgent

/// `client_certificate`, `client_key` and `client_key_password_file` in a target's `tls:` and in `tls_policies:`.
final class ClientCertificateConfigurationTests: XCTestCase {
    private var pki: LoopbackPKI!
    private var directory: TemporaryDirectory { pki.directory }
    private static let password = "SECRET-key-password"

    override func setUpWithError() throws {
        pki = try LoopbackPKI(in: try TemporaryDirectory(), caName: "netvigil client CA", leaves: [])
        try pki.issueClientCertificate("client")
        try pki.issueClientCertificate("other", keyType: .ed25519)
        try pki.issueClientCertificate("locked", keyType: .rsa, password: Self.password)
    }

    /// Loads `yaml` as `netvigil.yml` in the PKI's directory (relative paths resolve there).
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: directory.path("netvigil.yml"))
    }

    private func error(_ yaml: String) -> String {
        do {
            _ = try load(yaml)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testTargetAndSharedEntriesSelectCertificatesPerHost() throws {
        let configuration = try load("""
            tls_policies:
              - hosts: ["*.corp.test"]
                client_certificate: client.pem
                client_key: client.key
              - hosts: [pinned.corp.test]
                pins: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=, sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=]
            targets:
              - { name: shared, url: "https://api.corp.test/" }
              - { name: own, url: "https://own.corp.test/", tls: { client_certificate: other.pem, client_key: \(directory.path("other.key")) } }
              - { name: locked, url: "https://locked.test/",
                  tls: { client_certificate: locked.pem, client_key: locked.key, client_key_password_file: locked.pass } }
              - { name: none, url: "https://elsewhere.test/" }
            """)
        let targets = Dictionary(uniqueKeysWithValues: configuration.targets.targets.map { ($0.name, $0) })
        func subject(_ name: String, _ host: String) -> String? {
            targets[name]?.configuration.clientIdentities.identity(for: host)?.chain.first?.subject
        }
        XCTAssertEqual(subject("shared", "api.corp.test"), "CN=client")
        XCTAssertEqual(subject("shared", "redirect.corp.test"), "CN=client")  // a redirect hop's host
        XCTAssertEqual(subject("own", "own.corp.test"), "CN=other")
        XCTAssertEqual(subject("locked", "locked.test"), "CN=locked")
        XCTAssertNil(subject("none", "elsewhere.test"))
        // An entry with only a client certificate chooses no policy: the pinned entry still applies to its host.
        XCTAssertEqual(configuration.tlsPolicies.entries.count, 2)
        XCTAssertNil(targets["shared"]?.configuration.policies.entry(for: "api.corp.test"))
        XCTAssertNotNil(targets["shared"]?.configuration.policies.entry(for: "pinned.corp.test"))
        XCTAssertEqual(configuration.warnings, [])
    }

    func testLoadErrorsAreLinePreciseAndNeverQuoteSecrets() throws {
        _ = try directory.write("wrong.pass", "SECRET-wrong\n")
        _ = try directory.write("garbage.key", "SECRET-garbage\n")
        func target(_ tls: String) -> String {
            PlantedSecrets.configuration + "  - name: m\n    url: https://m.test/\n    tls:\n" + tls
        }
        let cases: [(String, String)] = [
            (target("      client_certificate: client.pem\n      client_key: missing.key\n"),
             "netvigil.yml:14:19: targets[1].tls.client_key: \(directory.path("missing.key")) does not exist"),
            (target("      client_certificate: client.pem\n      client_key: other.key\n"),
             "netvigil.yml:14:19: targets[1].tls.client_key: \(directory.path("other.key")): the private key does not match the certificate"),
            (target("      client_certificate: locked.pem\n      client_key: locked.key\n      client_key_password_file: wrong.pass\n"),
             "netvigil.yml:15:33: targets[1].tls.client_key_password_file: \(directory.path("locked.key")): the password does not decrypt"),
            (target("      client_certificate: locked.pem\n      client_key: locked.key\n"),
             "targets[1].tls.client_key: \(directory.path("locked.key")): the private key is encrypted"),
            (target("      client_certificate: client.pem\n      client_key: garbage.key\n"),
             "targets[1].tls.client_key: \(directory.path("garbage.key")): contains no PEM private key"),
            (target("      client_certificate: client.pem\n"), "netvigil.yml:13:7: targets[1].tls: client_certificate needs client_key"),
            (target("      client_certificate: client.key\n      client_key: client.key\n"), "targets[1].tls.client_certificate: client certificate:"),
            ("tls_policies:\n  - hosts: [a.test]\n    client_key: client.key\n",
             "netvigil.yml:2:5: tls_policies[0]: client_key and client_key_password_file need client_certificate"),
            ("targets:\n  - { name: p, url: 'http://p.test/', tls: { client_certificate: client.pem, client_key: client.key } }\n",
             "tls settings need an https:// URL"),
        ]
        let keyText = try String(contentsOfFile: directory.path("client.key"), encoding: .utf8)
        for (yaml, expected) in cases {
            let text = error(yaml)
            XCTAssertTrue(text.contains(expected), "\"\(text)\" lacks \"\(expected)\"")
            XCTAssertFalse(text.contains("SECRET") || text.contains("PRIVATE KEY") || text.contains(keyText.dropFirst(30).prefix(30)), text)
        }
    }

    func testAGroupReadableKeyWarnsWithItsLocation() async throws {
        chmod(directory.path("client.key"), 0o644)
        let configuration = try load("""
            tls_policies:
              - hosts: [a.test]
                client_certificate: client.pem
                client_key: client.key
            targets:
              - name: t
                url: https://t.test/
                tls: { client_certificate: client.pem, client_key: client.key }
            """)
        XCTAssertEqual(configuration.warnings.count, 2, "\(configuration.warnings)")
        XCTAssertTrue(configuration.warnings[0].hasPrefix("\(directory.path("netvigil.yml")):4:17: tls_policies[0].client_key: client key"),
                      configuration.warnings[0])
        XCTAssertTrue(configuration.warnings[1].contains("targets[0].tls.client_key: client key \(directory.path("client.key")) is readable by group or others (mode 644)"),
                      configuration.warnings[1])

        // The daemon logs them on reload (and at start); never the key.
        let logs = LogRecorder()
        let path = directory.path("netvigil.yml")
        try """
            targets:
              - { name: t, url: "https://t.test/", tls: { client_certificate: client.pem, client_key: client.key } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let reloader = ConfigReloader(path: path, logger: logs.logger()) { _ in .init(added: [], changed: [], removed: [], needsRestart: []) }
        _ = await reloader.reload()
        let warnings = logs.all.filter { $0.message == "configuration warning" }
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.metadata["warning"]?.contains("readable by group or others") == true)
        XCTAssertFalse(logs.all.contains { ($0.message + $0.metadata.values.joined()).contains("PRIVATE KEY") })
    }

    func testReloadingTheSameFilesKeepsTheFingerprintAndANewCertificateChangesIt() throws {
        let yaml = "targets:\n  - { name: t, url: 'https://t.test/', tls: { client_certificate: client.pem, client_key: client.key } }\n"
        let first = try load(yaml).targets.targets[0].fingerprint
        XCTAssertEqual(try load(yaml).targets.targets[0].fingerprint, first)
        try pki.issueClientCertificate("client")  // a renewed certificate and key in the same files
        XCTAssertNotEqual(try load(yaml).targets.targets[0].fingerprint, first)
    }
}
