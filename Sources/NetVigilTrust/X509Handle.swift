import COpenSSL
import Foundation
import Synchronization

/// Owns one reference of an OpenSSL `X509` plus the digests netvigil needs on every evaluation.
///
/// Immutable after `init`: the `X509` is only read (OpenSSL 3 caches its extensions under its own lock), so one
/// handle may be shared by any number of concurrent evaluations.
final class X509Handle: @unchecked Sendable {
    /// The certificate; this handle owns one reference.
    let pointer: OpaquePointer
    /// The DER encoding as parsed.
    let der: Data
    /// SHA-256 of `der`.
    let derSHA256: Data
    /// SHA-256 of the DER SubjectPublicKeyInfo.
    let spkiSHA256: Data
    /// Subject and issuer in one line, formatted on first use (every evaluation message names the anchor).
    private let nameLines = Mutex(NameLines())

    private struct NameLines {
        var subject: String?
        var issuer: String?
    }

    /// Parses DER. Returns nil when OpenSSL rejects the bytes or trailing bytes follow the certificate.
    init?(der: Data) {
        guard !der.isEmpty else { return nil }
        cossl_clear_errors()
        let parsed: OpaquePointer? = der.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let x509 = d2i_X509(nil, &cursor, raw.count) else { return nil }
            if cursor != base + raw.count {
                X509_free(x509)
                return nil
            }
            return x509
        }
        guard let parsed, let spki = X509Handle.spkiDigest(parsed) else {
            cossl_clear_errors()
            return nil
        }
        self.pointer = parsed
        self.der = der
        self.derSHA256 = X509Handle.sha256(der)
        self.spkiSHA256 = spki
    }

    /// Takes a new reference of an `X509` owned elsewhere (e.g. a validated chain or a TLS handshake).
    init?(retaining x509: OpaquePointer) {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { return nil }
        let der = Data(bytes: out, count: Int(length))
        cossl_OPENSSL_free(out)
        guard let spki = X509Handle.spkiDigest(x509) else { return nil }
        X509_up_ref(x509)
        self.pointer = x509
        self.der = der
        self.derSHA256 = X509Handle.sha256(der)
        self.spkiSHA256 = spki
    }

    deinit {
        X509_free(pointer)
    }

    /// The subject distinguished name in one line (RFC 2253 order).
    var subjectLine: String { nameLine(\.subject, X509_get_subject_name) }

    /// The issuer distinguished name in one line (RFC 2253 order).
    var issuerLine: String { nameLine(\.issuer, X509_get_issuer_name) }

    private func nameLine(_ slot: WritableKeyPath<NameLines, String?>, _ name: (OpaquePointer?) -> OpaquePointer?) -> String {
        if let line = nameLines.withLock({ $0[keyPath: slot] }) { return line }
        let line = Certificate.oneLine(name(pointer))
        nameLines.withLock { $0[keyPath: slot] = line }
        return line
    }

    static func sha256(_ data: Data) -> Data {
        var digest = Data(count: 32)
        digest.withUnsafeMutableBytes { md in
            data.withUnsafeBytes { raw in
                _ = cossl_sha256(raw.baseAddress, raw.count, md.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return digest
    }

    static func spkiDigest(_ x509: OpaquePointer) -> Data? {
        sha256(ofOpenSSLBuffer: { cossl_X509_spki_der(x509, &$0) })
    }

    /// SHA-256 of the bytes an OpenSSL `i2d`-style call allocates (`encode` stores the buffer and returns its length);
    /// frees the buffer. Nil when encoding or hashing fails.
    static func sha256(ofOpenSSLBuffer encode: (inout UnsafeMutablePointer<UInt8>?) -> Int32) -> Data? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = encode(&out)
        guard length > 0, let out else { return nil }
        defer { cossl_OPENSSL_free(out) }
        var digest = Data(count: 32)
        let ok = digest.withUnsafeMutableBytes { md in
            cossl_sha256(out, Int(length), md.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ok == 1 ? digest : nil
    }
}
