import COpenSSL
import Foundation

/// Test keys and certificates made in process with libcrypto (no openssl CLI, no fork), as `openssl req -x509`,
/// `openssl x509 -req` and `openssl ca` make them: X.509 v3, SHA-256 (none for Ed25519), random positive serials,
/// extensions in openssl.cnf syntax (`("subjectAltName", "DNS:localhost,IP:127.0.0.1")`). Like OpenSSL 3's CLI, a
/// certificate whose extensions name neither gets `subjectKeyIdentifier = hash` and, when issued by another
/// certificate, `authorityKeyIdentifier = keyid`.
public enum TestCertificateFactory {
    /// A key type the factory generates.
    public enum KeyType: Sendable {
        case rsa(bits: Int32)
        case ecdsaP256
        case ed25519
    }

    /// A private key (an `EVP_PKEY`), written as unencrypted PKCS#8 PEM like `openssl genpkey`.
    public final class Key: @unchecked Sendable {
        let pointer: OpaquePointer
        public let type: KeyType

        /// Generates a new key of `type`.
        public init(_ type: KeyType) throws {
            self.type = type
            let id: Int32
            switch type {
            case .rsa: id = EVP_PKEY_RSA
            case .ecdsaP256: id = EVP_PKEY_EC
            case .ed25519: id = EVP_PKEY_ED25519
            }
            guard let context = EVP_PKEY_CTX_new_id(id, nil) else { throw FactoryError("EVP_PKEY_CTX_new_id") }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_keygen_init(context) == 1 else { throw FactoryError("EVP_PKEY_keygen_init") }
            switch type {
            case .rsa(let bits):
                guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1 else { throw FactoryError("RSA key size") }
            case .ecdsaP256:
                guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else { throw FactoryError("EC group") }
            case .ed25519: break
            }
            var key: OpaquePointer?
            guard EVP_PKEY_keygen(context, &key) == 1, let key else { throw FactoryError("EVP_PKEY_keygen") }
            pointer = key
        }

        /// Reads an unencrypted PEM private key of `type` from `path`.
        public init(pemFile path: String, type: KeyType) throws {
            guard let bio = BIO_new_file(path, "r") else { throw FactoryError("open \(path)") }
            defer { BIO_free(bio) }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw FactoryError("read key \(path)") }
            pointer = key
            self.type = type
        }

        deinit { EVP_PKEY_free(pointer) }

        /// PKCS#8 PEM; with `password`, encrypted with AES-256-CBC (`openssl genpkey -aes256 -pass pass:…`).
        public func pem(password: String? = nil) throws -> String {
            try TestCertificateFactory.memoryPEM { bio in
                if let password {
                    return PEM_write_bio_PKCS8PrivateKey(bio, pointer, EVP_aes_256_cbc(), password, Int32(password.utf8.count),
                                                         nil, nil)
                }
                return PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
            }
        }

        /// Writes `pem(password:)` to `path` with mode 0600.
        public func write(to path: String, password: String? = nil) throws {
            try pem(password: password).write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }
    }

    /// A certificate (an `X509`) and its PEM.
    public final class Issued: @unchecked Sendable {
        let pointer: OpaquePointer
        public let key: Key
        public let pem: String

        init(pointer: OpaquePointer, key: Key) throws {
            self.pointer = pointer
            self.key = key
            pem = try TestCertificateFactory.memoryPEM { PEM_write_bio_X509($0, pointer) }
        }

        /// Reads a PEM certificate from `path`, with the key that signs what it issues.
        public convenience init(pemFile path: String, key: Key) throws {
            guard let bio = BIO_new_file(path, "r") else { throw FactoryError("open \(path)") }
            defer { BIO_free(bio) }
            guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else { throw FactoryError("read certificate \(path)") }
            try self.init(pointer: x509, key: key)
        }

        deinit { X509_free(pointer) }

        /// Writes the certificate's PEM to `path`.
        public func write(to path: String) throws {
            try pem.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// Makes a certificate for `key` with `subject` (`/O=…/CN=…`), signed by `issuer` (self-signed when nil), valid
    /// from `notBefore` to `notAfter`, with `extensions` in openssl.cnf syntax, in order.
    public static func certificate(subject: String, key: Key, issuer: Issued? = nil, notBefore: Date = Date(),
                                   notAfter: Date, serial: UInt64? = nil,
                                   extensions: [(name: String, value: String)]) throws -> Issued {
        guard let x509 = X509_new() else { throw FactoryError("X509_new") }
        var owned: OpaquePointer? = x509
        defer { if let owned { X509_free(owned) } }
        guard X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial ?? UInt64.random(in: 1...UInt64(Int64.max))) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970)) != nil,
              X509_set_pubkey(x509, key.pointer) == 1 else { throw FactoryError("certificate fields") }
        guard let name = X509_NAME_new() else { throw FactoryError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        try add(subject, to: name)
        guard X509_set_subject_name(x509, name) == 1,
              X509_set_issuer_name(x509, issuer.flatMap { X509_get_subject_name($0.pointer) } ?? name) == 1 else {
            throw FactoryError("names")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x509, x509, nil, nil, 0)
        if issuer == nil { _ = X509V3_set_issuer_pkey(&context, key.pointer) }
        var all = extensions
        if !all.contains(where: { $0.name == "subjectKeyIdentifier" }) { all.append(("subjectKeyIdentifier", "hash")) }
        if issuer != nil, !all.contains(where: { $0.name == "authorityKeyIdentifier" }) {
            all.append(("authorityKeyIdentifier", "keyid"))
        }
        // The subject key identifier goes first, so a self-signed keyid:always authority key identifier finds it.
        let ordered = all.filter { $0.name == "subjectKeyIdentifier" } + all.filter { $0.name != "subjectKeyIdentifier" }
        for (extensionName, value) in ordered {
            guard let created = X509V3_EXT_nconf(nil, &context, extensionName, value) else {
                throw FactoryError("extension \(extensionName) = \(value)")
            }
            defer { X509_EXTENSION_free(created) }
            guard X509_add_ext(x509, created, -1) == 1 else { throw FactoryError("X509_add_ext \(extensionName)") }
        }
        let signer = issuer?.key ?? key
        let digest: OpaquePointer? = if case .ed25519 = signer.type { nil } else { EVP_sha256() }
        guard X509_sign(x509, signer.pointer, digest) > 0 else { throw FactoryError("X509_sign") }
        owned = nil
        return try Issued(pointer: x509, key: key)
    }

    /// What `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days DAYS -subj SUBJECT -keyout KEY
    /// -out CERTIFICATE` writes: a self-signed P-256 CA certificate and its key (mode 0600).
    @discardableResult
    public static func selfSigned(subject: String, days: Int, certificatePath: String, keyPath: String) throws -> Issued {
        let key = try Key(.ecdsaP256)
        let certificate = try certificate(
            subject: subject, key: key, notAfter: Self.days(days),
            extensions: [("authorityKeyIdentifier", "keyid:always"), ("basicConstraints", "critical,CA:TRUE")])
        try key.write(to: keyPath)
        try certificate.write(to: certificatePath)
        return certificate
    }

    /// A PEM certificate signing request for `key` with `subject` (what `openssl req -new` writes).
    public static func request(subject: String, key: Key) throws -> String {
        guard let request = X509_REQ_new() else { throw FactoryError("X509_REQ_new") }
        defer { X509_REQ_free(request) }
        guard let name = X509_NAME_new() else { throw FactoryError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        try add(subject, to: name)
        let digest: OpaquePointer? = if case .ed25519 = key.type { nil } else { EVP_sha256() }
        guard X509_REQ_set_subject_name(request, name) == 1, X509_REQ_set_pubkey(request, key.pointer) == 1,
              X509_REQ_sign(request, key.pointer, digest) > 0 else { throw FactoryError("X509_REQ_sign") }
        return try memoryPEM { PEM_write_bio_X509_REQ($0, request) }
    }

    static func add(_ subject: String, to name: OpaquePointer) throws {
        for component in subject.split(separator: "/") {
            let parts = component.split(separator: "=", maxSplits: 1).map(String.init)
            let value = Array(parts.count == 2 ? parts[1].utf8 : "".utf8)
            // 0x1001: MBSTRING_ASC (MBSTRING_FLAG | 1).
            guard parts.count == 2, X509_NAME_add_entry_by_txt(name, parts[0], 0x1001, value, Int32(value.count), -1, 0) == 1 else {
                throw FactoryError("subject component \(component)")
            }
        }
    }

    /// Days from now, as `-days N` counts them.
    public static func days(_ count: Int, from start: Date = Date()) -> Date {
        start.addingTimeInterval(TimeInterval(count) * 86_400)
    }

    static func memoryPEM(_ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw FactoryError("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw FactoryError("PEM write") }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let count = BIO_read(bio, &bytes, Int32(bytes.count))
        guard count == bytes.count else { throw FactoryError("BIO_read") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A libcrypto call failed while making a fixture.
    public struct FactoryError: Error, CustomStringConvertible {
        public let description: String
        init(_ step: String) {
            let code = ERR_get_error()
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            description = "test certificate: \(step) failed: "
                + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
