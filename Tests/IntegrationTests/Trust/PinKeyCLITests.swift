import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil pin` on private keys, public keys and CSRs made with the openssl CLI; pins compared with openssl's own.
final class PinKeyCLITests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func openssl(_ arguments: [String]) throws {
        try shell("/usr/bin/openssl", arguments, cwd: directory.url.path)
    }

    /// The pin as the openssl CLI computes it from the key: `pkey -pubout | pkey -pubin -outform DER | dgst -sha256 | base64`.
    private func opensslPin(ofPrivateKey name: String) throws -> String {
        let script = "openssl pkey -in '\(name)' -pubout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"
        let output = try shell("/bin/sh", ["-c", script], cwd: directory.url.path)
        return "sha256/" + String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func pins(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try ProcessRunner.run(["pin", "--json"] + arguments.map { directory.path($0) })
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], result.stdout)
    }

    func testPinsOfPrivateKeysPublicKeysAndCSRsMatchOpenSSL() throws {
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.key"])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "ec.key"])
        try openssl(["genpkey", "-algorithm", "ED25519", "-out", "ed.key"])
        try openssl(["rsa", "-in", "rsa.key", "-traditional", "-out", "rsa-traditional.key"])
        try openssl(["pkey", "-in", "ec.key", "-outform", "DER", "-out", "ec-key.der"])
        try openssl(["pkey", "-in", "rsa.key", "-pubout", "-out", "rsa.pub"])
        try openssl(["rsa", "-in", "rsa.key", "-RSAPublicKey_out", "-out", "rsa-pkcs1.pub"])
        try openssl(["pkey", "-in", "ed.key", "-pubout", "-outform", "DER", "-out", "ed-pub.der"])
        try openssl(["req", "-new", "-key", "ec.key", "-subj", "/CN=backup.example.test", "-out", "ec.csr"])
        try openssl(["req", "-new", "-key", "rsa.key", "-subj", "/CN=backup.example.test", "-outform", "DER", "-out", "rsa-csr.der"])

        let rsa = try opensslPin(ofPrivateKey: "rsa.key"), ec = try opensslPin(ofPrivateKey: "ec.key")
        let ed = try opensslPin(ofPrivateKey: "ed.key")
        let expected: [(file: String, kind: String, key: String, pin: String)] = [
            ("rsa.key", "private_key", "RSA 2048", rsa), ("rsa-traditional.key", "private_key", "RSA 2048", rsa),
            ("ec.key", "private_key", "EC P-384", ec), ("ec-key.der", "private_key", "EC P-384", ec),
            ("ed.key", "private_key", "Ed25519 256", ed), ("rsa.pub", "public_key", "RSA 2048", rsa),
            ("rsa-pkcs1.pub", "public_key", "RSA 2048", rsa), ("ed-pub.der", "public_key", "Ed25519 256", ed),
            ("ec.csr", "csr", "EC P-384", ec), ("rsa-csr.der", "csr", "RSA 2048", rsa),
        ]
        let entries = try pins(expected.map(\.file))
        XCTAssertEqual(entries.count, expected.count)
        for (entry, want) in zip(entries, expected) {
            XCTAssertEqual(entry["file"] as? String, directory.path(want.file))
            XCTAssertEqual(entry["kind"] as? String, want.kind, want.file)
            XCTAssertEqual(entry["key"] as? String, want.key, want.file)
            XCTAssertEqual(entry["pin"] as? String, want.pin, want.file)
        }

        let text = try ProcessRunner.run(["pin", directory.path("ec.csr")])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout, "\(directory.path("ec.csr")):\n  [0] CSR (EC P-384)\n      pin:        \(ec)\n")
    }

    func testACertificateAndItsKeyInOneFileShareThePin() throws {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                     "-subj", "/CN=combined.example.test", "-days", "2", "-out", "cert.pem"])
        let combined = try String(contentsOfFile: directory.path("cert.pem"), encoding: .utf8)
            + String(contentsOfFile: directory.path("key.pem"), encoding: .utf8)
        _ = try directory.write("combined.pem", combined)
        let entries = try pins(["combined.pem"])
        XCTAssertEqual(entries.map { $0["kind"] as? String }, ["certificate", "private_key"])
        XCTAssertEqual(entries[0]["pin"] as? String, try opensslPin(ofPrivateKey: "key.pem"))
        XCTAssertEqual(entries[1]["pin"] as? String, entries[0]["pin"] as? String)
    }

    func testEncryptedKeysAndOtherFilesAreRefusedWithOneLine() throws {
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret",
                     "-out", "encrypted.key"])
        try openssl(["ec", "-in", "encrypted.key", "-passin", "pass:secret", "-aes256", "-passout", "pass:secret",
                     "-out", "encrypted-traditional.key"])
        for name in ["encrypted.key", "encrypted-traditional.key"] {
            let result = try ProcessRunner.run(["pin", directory.path(name)])
            XCTAssertEqual(result.status, 65, name)
            XCTAssertEqual(result.stderr, "netvigil: \(directory.path(name)): the private key is encrypted; pin its public key "
                           + "instead (openssl pkey -in KEY -pubout -out KEY.pub)\n")
        }
        let broken = try directory.write("broken.key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        let brokenResult = try ProcessRunner.run(["pin", broken])
        XCTAssertEqual(brokenResult.status, 65)
        XCTAssertEqual(brokenResult.stderr, "netvigil: \(broken): a PEM PRIVATE KEY block does not decode\n")
        let text = try directory.write("notes.txt", "hello\n")
        let textResult = try ProcessRunner.run(["pin", text])
        XCTAssertEqual(textResult.status, 65)
        XCTAssertEqual(textResult.stderr, "netvigil: \(text): not a certificate, private key, public key or CSR (DER or PEM)\n")
        let both = try ProcessRunner.run(["pin", "--json", "--pem", text])
        XCTAssertEqual(both.status, 64)
    }

    func testPEMReprintsCertificatesAndRefusesKeysAlone() throws {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                     "-subj", "/CN=pem.example.test", "-days", "2", "-outform", "DER", "-out", "cert.der"])
        let result = try ProcessRunner.run(["pin", "--pem", directory.path("cert.der")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try shell("/usr/bin/openssl", ["x509", "-inform", "DER", "-in", directory.path("cert.der")])
        XCTAssertEqual(result.stdout, String(decoding: expected, as: UTF8.self))
        let keyOnly = try ProcessRunner.run(["pin", "--pem", directory.path("key.pem")])
        XCTAssertEqual(keyOnly.status, 65)
    }
}
