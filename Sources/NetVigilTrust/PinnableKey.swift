import COpenSSL
import Foundation

/// A public key read from a private key, a public key or a certificate signing request, so that its SPKI pin (the
/// same pin a certificate for the key has) can be computed before any certificate carries it: the backup pin.
public struct PinnableKey: Sendable, Hashable {
    /// What the key was read from.
    public enum Kind: String, Sendable, Codable {
        case privateKey = "private_key"
        case publicKey = "public_key"
        case certificateSigningRequest = "csr"

        /// For people: `private key`, `public key`, `CSR`.
        public var label: String {
            switch self {
            case .privateKey: return "private key"
            case .publicKey: return "public key"
            case .certificateSigningRequest: return "CSR"
            }
        }
    }

    public let kind: Kind
    /// Algorithm and size of the public key.
    public let publicKey: PublicKeyInfo
    /// base64(SHA-256(DER SubjectPublicKeyInfo)), as for a certificate with this key.
    public let spkiPin: SPKIPin

    /// PEM labels and the reader each takes; other blocks (certificates, EC PARAMETERS) are skipped.
    private static let pemKinds: [String: Int32] = [
        "PRIVATE KEY": COSSL_KEY_PRIVATE, "RSA PRIVATE KEY": COSSL_KEY_PRIVATE, "EC PRIVATE KEY": COSSL_KEY_PRIVATE,
        "DSA PRIVATE KEY": COSSL_KEY_PRIVATE, "PUBLIC KEY": COSSL_KEY_PUBLIC, "RSA PUBLIC KEY": COSSL_KEY_RSA_PUBLIC,
        "CERTIFICATE REQUEST": COSSL_KEY_CSR, "NEW CERTIFICATE REQUEST": COSSL_KEY_CSR,
    ]

    /// The keys of PEM key and CSR blocks in `data`, or the one key of DER `data`; empty when there is none
    /// (for example a certificate). Encrypted private keys and undecodable key blocks throw.
    public static func parse(_ data: Data, source: String = "input") throws(CertificateError) -> [PinnableKey] {
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") else {
            return decode(der: data, kind: COSSL_KEY_ANY).map { [$0] } ?? []
        }
        var keys: [PinnableKey] = []
        for block in pemBlocks(text) {
            if block.label == "ENCRYPTED PRIVATE KEY" || (block.encrypted && block.label.hasSuffix("PRIVATE KEY")) {
                throw .encryptedKey(source)
            }
            guard let kind = pemKinds[block.label] else { continue }
            guard let der = Data(base64Encoded: block.body, options: .ignoreUnknownCharacters),
                  let key = decode(der: der, kind: kind)
            else { throw .invalidKey(source: source, label: block.label) }
            keys.append(key)
        }
        return keys
    }

    private static func decode(der: Data, kind: Int32) -> PinnableKey? {
        guard !der.isEmpty else { return nil }
        var found: Int32 = COSSL_KEY_ANY
        let key = der.withUnsafeBytes { raw in
            cossl_public_key_from_der(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count, kind, &found)
        }
        guard let key else { return nil }
        defer { EVP_PKEY_free(key) }
        guard let digest = X509Handle.sha256(ofOpenSSLBuffer: { cossl_EVP_PKEY_spki_der(key, &$0) }) else { return nil }
        let info = PublicKeyInfo(type: EVP_PKEY_get_base_id(key), bits: Int(EVP_PKEY_get_bits(key)),
                                 curveNID: cossl_EVP_PKEY_ec_curve_nid(key))
        let kinds: [Int32: Kind] = [COSSL_KEY_PRIVATE: .privateKey, COSSL_KEY_PUBLIC: .publicKey,
                                    COSSL_KEY_RSA_PUBLIC: .publicKey, COSSL_KEY_CSR: .certificateSigningRequest]
        return PinnableKey(kind: kinds[found] ?? .publicKey, publicKey: info, spkiPin: SPKIPin(digest: digest))
    }

    /// Label, base64 body and whether RFC 1421 headers mark the block encrypted (`Proc-Type: 4,ENCRYPTED`).
    private static func pemBlocks(_ text: String) -> [(label: String, body: String, encrypted: Bool)] {
        var blocks: [(label: String, body: String, encrypted: Bool)] = []
        var current: (label: String, body: String, encrypted: Bool)? = nil
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                current = (String(line.dropFirst(11).dropLast(5)), "", false)
            } else if line.hasPrefix("-----END "), let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                if line.contains(":") {
                    if line.hasPrefix("Proc-Type:"), line.contains("ENCRYPTED") { current!.encrypted = true }
                    continue
                }
                current!.body += line
            }
        }
        return blocks
    }
}
