import Foundation

extension LoopbackPKI {
    /// Key types for client certificates.
    public enum ClientKeyType: String, CaseIterable, Sendable {
        case rsa, ecdsaP256, ed25519

        var keyType: TestCertificateFactory.KeyType {
            switch self {
            case .rsa: .rsa(bits: 2048)
            case .ecdsaP256: .ecdsaP256
            case .ed25519: .ed25519
            }
        }
    }

    /// Issues a client certificate (`extendedKeyUsage=clientAuth`, subject `/CN=NAME`, 30 days) signed by this CA, in
    /// process: `NAME.pem` and `NAME.key` (mode 0600). With `password`, the key is encrypted PKCS#8 (AES-256) and the
    /// password is written to `NAME.pass` (mode 0600).
    public func issueClientCertificate(_ name: String, keyType: ClientKeyType = .ecdsaP256, password: String? = nil) throws {
        if let password {
            let file = try directory.write("\(name).pass", password + "\n")
            chmod(file, 0o600)
        }
        let key = try TestCertificateFactory.Key(keyType.keyType)
        try key.write(to: directory.path("\(name).key"), password: password)
        let certificate = try TestCertificateFactory.certificate(
            subject: "/CN=\(name)", key: key, issuer: try authority(), notAfter: TestCertificateFactory.days(30),
            extensions: [("basicConstraints", "CA:FALSE"), ("extendedKeyUsage", "clientAuth")])
        try certificate.write(to: directory.path("\(name).pem"))
    }
}
