import Foundation
import XCTest

/// A test CA and P-256 leaves (for 127.0.0.1 unless told otherwise), made in process (`TestCertificateFactory`, no
/// openssl CLI) in `directory`: `ca.pem`/`ca.key` and `NAME.pem`/`NAME.key`/`NAME.csr` per leaf, valid for 30 days, as
/// `openssl req -x509` and `openssl x509 -req -extfile` made them. `serve(_:)` copies one leaf to
/// `served.pem`/`served.key` (what a test's nginx serves), so a test can swap the key a server presents.
public struct LoopbackPKI {
    public let directory: TemporaryDirectory

    /// Makes the CA and one leaf per `(name, subject)`; every leaf carries `subjectAltName` (openssl syntax).
    public init(in directory: TemporaryDirectory, caName: String, leaves: [(name: String, subject: String)],
                subjectAltName: String = "IP:127.0.0.1") throws {
        self.directory = directory
        let caKey = try TestCertificateFactory.Key(.ecdsaP256)
        let ca = try TestCertificateFactory.certificate(
            subject: "/CN=\(caName)", key: caKey, notAfter: TestCertificateFactory.days(30),
            extensions: [("authorityKeyIdentifier", "keyid:always"), ("basicConstraints", "critical,CA:TRUE")])
        try caKey.write(to: directory.path("ca.key"))
        try ca.write(to: directory.path("ca.pem"))
        for (name, subject) in leaves {
            let key = try TestCertificateFactory.Key(.ecdsaP256)
            let leaf = try TestCertificateFactory.certificate(
                subject: subject, key: key, issuer: ca, notAfter: TestCertificateFactory.days(30),
                extensions: [("subjectAltName", subjectAltName), ("basicConstraints", "CA:FALSE"),
                             ("extendedKeyUsage", "serverAuth")])
            try key.write(to: directory.path("\(name).key"))
            try TestCertificateFactory.request(subject: subject, key: key)
                .write(toFile: directory.path("\(name).csr"), atomically: true, encoding: .utf8)
            try leaf.write(to: directory.path("\(name).pem"))
        }
    }

    /// This CA, read back from `ca.pem`/`ca.key`, to issue more certificates in process.
    func authority() throws -> TestCertificateFactory.Issued {
        try TestCertificateFactory.Issued(pemFile: directory.path("ca.pem"),
                                          key: try TestCertificateFactory.Key(pemFile: directory.path("ca.key"), type: .ecdsaP256))
    }

    /// The SPKI pin (`sha256/…`) of leaf `name`, from `netvigil pin --json`.
    public func pin(of name: String) throws -> String {
        let result = try ProcessRunner.run(["pin", "--json", directory.path("\(name).pem")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let entries = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return try XCTUnwrap(entries?.first?["pin"] as? String, result.stdout)
    }

    /// Makes leaf `name` the served certificate and reloads `nginx`.
    public func serve(_ name: String, nginx: NginxProcess?) throws {
        for suffix in ["pem", "key"] {
            let target = directory.path("served.\(suffix)")
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: directory.path("\(name).\(suffix)"), toPath: target)
        }
        nginx?.reload()
    }

    static func openssl(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        guard result.status == 0 else { throw NginxError(message: "openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)") }
    }
}
