/// Why a client certificate could not be loaded. Messages name files and the problem, never key material.
public enum ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidCertificate(path: String, reason: String)
    case noKey(path: String)
    case passwordRequired(path: String)
    case wrongPassword(path: String)
    case unsupportedKey(path: String)
    case keyMismatch(certificatePath: String, keyPath: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidCertificate(_, let reason): "client certificate: \(reason)"
        case .noKey(let path): "\(path): contains no PEM private key"
        case .passwordRequired(let path): "\(path): the private key is encrypted; give its password file (client_key_password_file / --key-password-file)"
        case .wrongPassword(let path): "\(path): the password does not decrypt the private key"
        case .unsupportedKey(let path): "\(path): unsupported key type (use an RSA, ECDSA or Ed25519 key)"
        case .keyMismatch(let certificatePath, let keyPath): "\(keyPath): the private key does not match the certificate \(certificatePath)"
        }
    }
}
