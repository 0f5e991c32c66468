import COpenSSL
import Foundation

/// One X.509 certificate: its DER bytes plus a parsed OpenSSL handle, shared by all copies.
///
/// Equality and hashing are by DER. Parsing happens once, in `init(der:)`; evaluations reuse the handle.
/// Codable as a PEM string.
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    let handle: X509Handle

    /// Parses one DER-encoded certificate.
    /// - Parameter source: names the input in errors (a path or a description).
    public init(der: Data, source: String = "certificate") throws(CertificateError) {
        guard let handle = X509Handle(der: der) else { throw .invalidDER(source) }
        self.handle = handle
    }

    /// Parses one DER-encoded certificate from bytes.
    public init(der: [UInt8], source: String = "certificate") throws(CertificateError) {
        try self.init(der: Data(der), source: source)
    }

    init(handle: X509Handle) {
        self.handle = handle
    }

    /// Wraps an `X509 *` owned elsewhere (for example the peer chain of a TLS handshake); takes its own reference.
    /// Returns nil when the certificate cannot be encoded.
    public init?(retainingX509 pointer: OpaquePointer) {
        guard let handle = X509Handle(retaining: pointer) else { return nil }
        self.handle = handle
    }

    /// The DER encoding.
    public var der: Data { handle.der }

    /// The `X509 *` of this certificate, valid while this value (or a copy) is alive. Do not free it.
    public var x509: OpaquePointer { handle.pointer }

    /// SPKI pin: base64(SHA-256(DER SubjectPublicKeyInfo)), written `sha256/BASE64`.
    public var spkiPin: SPKIPin { SPKIPin(digest: handle.spkiSHA256) }

    /// SHA-256 of the DER, lower-case hex without separators (as `sha256sum` prints it).
    public var sha256Fingerprint: String {
        let digits = Array("0123456789abcdef".utf8)
        let digest = handle.derSHA256
        return String(unsafeUninitializedCapacity: digest.count * 2) { output in
            for (index, byte) in digest.enumerated() {
                output[2 * index] = digits[Int(byte >> 4)]
                output[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return digest.count * 2
        }
    }

    /// The certificate as one PEM block, ending with a newline.
    public var pem: String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    public var description: String { "\(subject) (\(spkiPin))" }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.handle === rhs.handle || lhs.handle.der == rhs.handle.der
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(handle.derSHA256)
    }
}

extension Certificate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let certificates: [Certificate]
        do {
            certificates = try Certificate.parse(Data(text.utf8), source: "encoded certificate")
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
        guard certificates.count == 1 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected exactly one PEM certificate")
        }
        self = certificates[0]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(pem)
    }
}
