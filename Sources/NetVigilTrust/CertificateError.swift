/// Why certificates (or, for `PinnableKey`, keys and CSRs) could not be loaded.
public enum CertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a DER certificate.
    case invalidDER(String)
    /// A PEM block labelled CERTIFICATE could not be decoded.
    case invalidPEM(String)
    /// The input contains no certificate at all.
    case noCertificates(String)
    /// The file or directory does not exist or cannot be read.
    case unreadable(path: String, reason: String)
    /// A PEM key or CSR block does not decode.
    case invalidKey(source: String, label: String)
    /// A private key is encrypted (netvigil never asks for passphrases).
    case encryptedKey(String)

    /// The source the error is about (a path, or a short description of in-memory input).
    public var source: String {
        switch self {
        case .invalidDER(let source), .invalidPEM(let source), .noCertificates(let source), .encryptedKey(let source): return source
        case .unreadable(let path, _): return path
        case .invalidKey(let source, _): return source
        }
    }

    public var description: String {
        switch self {
        case .invalidDER(let source): return "\(source): not a DER or PEM X.509 certificate"
        case .invalidPEM(let source): return "\(source): a PEM CERTIFICATE block does not decode to a certificate"
        case .noCertificates(let source): return "\(source): contains no certificate"
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .invalidKey(let source, let label): return "\(source): a PEM \(label) block does not decode"
        case .encryptedKey(let source):
            return "\(source): the private key is encrypted; pin its public key instead (openssl pkey -in KEY -pubout -out KEY.pub)"
        }
    }
}
