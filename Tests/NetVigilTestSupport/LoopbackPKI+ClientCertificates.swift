import Foundation

extension LoopbackPKI {
    /// Key types for client certificates.
    public enum ClientKeyType: String, CaseIterable, Sendable {
        case rsa, ecdsaP256, ed25519

        var genpkeyArguments: [String] {
            switch self {
            case .rsa: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
            case .ecdsaP256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
            case .ed25519: ["-algorithm", "ED25519"]
            }
        }
    }

    /// Issues a client certificate (`extendedKeyUsage=clientAuth`, subject `/CN=NAME`) signed by this CA:
    /// `NAME.pem` and `NAME.key` (mode 0600). With `password`, the key is encrypted PKCS#8 (AES-256) and the
    /// password is written to `NAME.pass` (mode 0600).
    public func issueClientCertificate(_ name: String, keyType: ClientKeyType = .ecdsaP256, password: String? = nil) throws {
        let key = directory.path("\(name).key")
        var generate = ["genpkey"] + keyType.genpkeyArguments + ["-out", key]
        var passIn: [String] = []
        if let password {
            generate += ["-aes256", "-pass", "pass:\(password)"]
            passIn = ["-passin", "pass:\(password)"]
            let file = try directory.write("\(name).pass", password + "\n")
            chmod(file, 0o600)
        }
        try Self.openssl(generate)
        chmod(key, 0o600)
        try Self.openssl(["req", "-new", "-key", key] + passIn + ["-subj", "/CN=\(name)", "-out", directory.path("\(name).csr")])
        let extensions = try directory.write("client.ext", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        try Self.openssl(["x509", "-req", "-in", directory.path("\(name).csr"), "-CA", directory.path("ca.pem"),
                          "-CAkey", directory.path("ca.key"), "-CAcreateserial", "-days", "30", "-extfile", extensions,
                          "-out", directory.path("\(name).pem")])
    }
}
