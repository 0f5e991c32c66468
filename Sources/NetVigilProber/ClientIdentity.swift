import COpenSSL
import Foundation
import NetVigilTrust

/// A client certificate (mTLS): the certificate chain and its private key, read and checked once, then handed to
/// every `SSL_CTX` that uses it (the key is never read again per probe).
///
/// Equality and hashing are by the chain's DER (a certificate fixes its key, the key was checked against it), so
/// reloading the same files finds the cached TLS context again. Nothing here ever prints the key or the password.
public final class ClientIdentity: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The chain, the client's own certificate first, then any intermediates the file holds.
    public let chain: [Certificate]
    /// The certificate file (for messages).
    public let certificatePath: String
    /// The key file (for messages).
    public let keyPath: String
    /// The `EVP_PKEY`; read-only once made.
    let key: OpaquePointer

    /// Reads `certificatePath` (PEM, one or more certificates) and `keyPath` (PEM private key: RSA, ECDSA or
    /// Ed25519; PKCS#8, encrypted PKCS#8 or traditional), decrypting with `password` when given, and checks that
    /// the key belongs to the first certificate.
    public init(certificatePath: String, keyPath: String, password: [UInt8]? = nil) throws(ClientIdentityError) {
        let certificateData = Data(try Self.read(certificatePath))
        let chain: [Certificate]
        do {
            chain = try Certificate.parse(certificateData, source: certificatePath)
        } catch {
            throw .invalidCertificate(path: certificatePath, reason: "\(error)")
        }
        guard let leaf = chain.first else { throw .invalidCertificate(path: certificatePath, reason: "\(certificatePath): contains no certificate") }
        var keyBytes = try Self.read(keyPath)
        defer { Self.wipe(&keyBytes) }
        var status: Int32 = 0
        let key: OpaquePointer? = keyBytes.withUnsafeBufferPointer { pem in
            pem.withMemoryRebound(to: CChar.self) { pem in
                guard let password else {
                    return cossl_read_private_key_pem(pem.baseAddress, pem.count, nil, 0, &status)
                }
                var secret = password + [0]  // never empty, so the pointer is never nil
                defer { Self.wipe(&secret) }
                return secret.withUnsafeBufferPointer { secret in
                    secret.withMemoryRebound(to: CChar.self) { secret in
                        cossl_read_private_key_pem(pem.baseAddress, pem.count, secret.baseAddress, password.count, &status)
                    }
                }
            }
        }
        guard let key else {
            switch status {
            case COSSL_PRIVATE_KEY_NEEDS_PASSWORD: throw .passwordRequired(path: keyPath)
            case COSSL_PRIVATE_KEY_WRONG_PASSWORD: throw .wrongPassword(path: keyPath)
            case COSSL_PRIVATE_KEY_UNSUPPORTED: throw .unsupportedKey(path: keyPath)
            default: throw .noKey(path: keyPath)
            }
        }
        guard X509_check_private_key(leaf.x509, key) == 1 else {
            cossl_clear_errors()
            EVP_PKEY_free(key)
            throw .keyMismatch(certificatePath: certificatePath, keyPath: keyPath)
        }
        self.chain = chain
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.key = key
    }

    /// Like `init(certificatePath:keyPath:password:)`, the password read from `passwordFile` (its first line; a
    /// trailing newline is not part of it).
    public convenience init(certificatePath: String, keyPath: String, passwordFile: String?) throws(ClientIdentityError) {
        guard let passwordFile else {
            try self.init(certificatePath: certificatePath, keyPath: keyPath, password: nil)
            return
        }
        var password = try Self.read(passwordFile)
        defer { Self.wipe(&password) }
        var length = password.firstIndex(of: UInt8(ascii: "\n")) ?? password.count
        if length > 0, password[length - 1] == UInt8(ascii: "\r") { length -= 1 }
        try self.init(certificatePath: certificatePath, keyPath: keyPath, password: Array(password[..<length]))
    }

    deinit { EVP_PKEY_free(key) }

    /// The client certificate's subject and file, never the key.
    public var description: String { "\(chain[0].subject) (\(certificatePath))" }

    /// Whether the key file may be read by its group or by anyone (mode & 0o044): a private key should be 0600 or 0400.
    public static func keyFileIsShared(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o044 != 0
    }

    /// The warning for a group- or world-readable key file, nil when its mode is fine.
    public static func keyFileWarning(_ path: String) -> String? {
        guard keyFileIsShared(path) else { return nil }
        var info = stat()
        _ = stat(path, &info)
        return "client key \(path) is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it"
    }

    public static func == (lhs: ClientIdentity, rhs: ClientIdentity) -> Bool {
        lhs === rhs || lhs.chain == rhs.chain
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(chain)
    }

    /// The bytes of the file at `path` (the caller wipes secret ones).
    private static func read(_ path: String) throws(ClientIdentityError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            throw .unreadable(path: path, reason: "no such file")
        } catch let error as CocoaError where error.code == .fileReadNoPermission {
            throw .unreadable(path: path, reason: "permission denied")
        } catch {
            throw .unreadable(path: path, reason: "cannot read the file")
        }
    }

    /// Overwrites secret bytes before they are released (best effort).
    static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
