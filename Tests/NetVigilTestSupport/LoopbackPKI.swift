import Foundation
import XCTest

/// A test CA and P-256 leaves (for 127.0.0.1 unless told otherwise), made with the openssl CLI in `directory`:
/// `ca.pem`/`ca.key` and `NAME.pem`/`NAME.key` per leaf. `serve(_:)` copies one leaf to `served.pem`/`served.key` (what a test's nginx
/// serves), so a test can swap the key a server presents.
public struct LoopbackPKI {
    public let directory: TemporaryDirectory

    /// Makes the CA and one leaf per `(name, subject)`; every leaf carries `subjectAltName` (openssl syntax).
    public init(in directory: TemporaryDirectory, caName: String, leaves: [(name: String, subject: String)],
                subjectAltName: String = "IP:127.0.0.1") throws {
        self.directory = directory
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                          "-subj", "/CN=\(caName)", "-keyout", directory.path("ca.key"), "-out", directory.path("ca.pem")])
        let extensions = try directory.write("leaf.ext", "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        for (name, subject) in leaves {
            try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject,
                              "-keyout", directory.path("\(name).key"), "-out", directory.path("\(name).csr")])
            try Self.openssl(["x509", "-req", "-in", directory.path("\(name).csr"), "-CA", directory.path("ca.pem"),
                              "-CAkey", directory.path("ca.key"), "-CAcreateserial", "-days", "30", "-extfile", extensions,
                              "-out", directory.path("\(name).pem")])
        }
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
