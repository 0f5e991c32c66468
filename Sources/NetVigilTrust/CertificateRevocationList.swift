import COpenSSL
import Foundation
import Synchronization

/// Why a CRL could not be loaded.
public enum CRLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(String, String)
    /// The bytes are neither a DER CRL nor PEM `X509 CRL` blocks.
    case invalid(String)
    /// The CRL is larger than `CertificateRevocationList.maximumBytes`.
    case tooLarge(String, Int)

    public var description: String {
        switch self {
        case .unreadable(let source, let detail): return "cannot read CRL \(source): \(detail)"
        case .invalid(let source): return "\(source) is not a CRL (DER or PEM X509 CRL expected)"
        case .tooLarge(let source, let size):
            return "CRL \(source) is \(size) bytes, over the \(CertificateRevocationList.maximumBytes)-byte limit"
        }
    }
}

/// One parsed certificate revocation list (RFC 5280 section 5). Immutable and shared; OpenSSL only reads it.
public final class CertificateRevocationList: @unchecked Sendable, Hashable {
    /// The largest CRL netvigil reads or downloads (20 MB).
    public static let maximumBytes = 20 * 1024 * 1024

    let pointer: OpaquePointer
    /// Where it came from (a path or URL), for messages.
    public let source: String
    /// SHA-256 of the encoding, for equality.
    let digest: Data
    /// SHA-256 digests of the issuer keys whose signature over this CRL was checked and found valid.
    private let verifiedIssuerKeys = Mutex<Set<Data>>([])

    private init(pointer: OpaquePointer, source: String, digest: Data) {
        self.pointer = pointer
        self.source = source
        self.digest = digest
    }

    deinit {
        X509_CRL_free(pointer)
    }

    /// Parses DER or PEM (one or more `X509 CRL` blocks).
    public static func parse(_ data: Data, source: String) throws(CRLError) -> [CertificateRevocationList] {
        guard data.count <= maximumBytes else { throw .tooLarge(source, data.count) }
        let digest = X509Handle.sha256(data)
        if data.starts(with: Array("-----BEGIN".utf8)) || String(decoding: data.prefix(4096), as: UTF8.self).contains("-----BEGIN X509 CRL") {
            var found = [OpaquePointer?](repeating: nil, count: 64)
            let count = data.withUnsafeBytes { raw in
                cossl_X509_CRL_read_pem(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, &found, Int32(found.count))
            }
            guard count > 0 else { throw .invalid(source) }
            return found.prefix(Int(count)).enumerated().compactMap { index, pointer in
                pointer.map { CertificateRevocationList(pointer: $0, source: source, digest: digest + [UInt8(index)]) }
            }
        }
        let parsed = data.withUnsafeBytes { raw in
            cossl_X509_CRL_from_der(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        guard let parsed else { throw .invalid(source) }
        return [CertificateRevocationList(pointer: parsed, source: source, digest: digest)]
    }

    /// Loads the CRLs of one file (DER or PEM), refusing files over `maximumBytes` before reading them.
    public static func load(path: String) throws(CRLError) -> [CertificateRevocationList] {
        let data: Data
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maximumBytes else { throw CRLError.tooLarge(path, size) }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CRLError {
            throw error
        } catch {
            throw .unreadable(path, (error as NSError).localizedDescription)
        }
        return try parse(data, source: path)
    }

    /// The issuer name in one line.
    public var issuer: String { Certificate.oneLine(X509_CRL_get_issuer(pointer)) }
    /// thisUpdate.
    public var thisUpdate: Date { Certificate.date(X509_CRL_get0_lastUpdate(pointer)) }
    /// nextUpdate; nil when the CRL has none (then it is never fresh: RFC 5280 requires it).
    public var nextUpdate: Date? {
        guard let time = X509_CRL_get0_nextUpdate(pointer) else { return nil }
        return Certificate.date(time)
    }

    /// True when `issuer`'s subject is this CRL's issuer and its key signed the CRL.
    /// The signature check runs once per issuer key (hashing a large CRL is the costly part).
    func isIssued(by issuer: Certificate) -> Bool {
        guard names(issuer) else { return false }
        let key = issuer.handle.spkiSHA256
        if verifiedIssuerKeys.withLock({ $0.contains(key) }) { return true }
        guard cossl_X509_CRL_signed_by(pointer, issuer.x509) == 1 else { return false }
        verifiedIssuerKeys.withLock { _ = $0.insert(key) }
        return true
    }

    /// True when the CRL's issuer name is `issuer`'s subject.
    func names(_ issuer: Certificate) -> Bool {
        X509_NAME_cmp(X509_CRL_get_issuer(pointer), X509_get_subject_name(issuer.x509)) == 0
    }

    /// Whether the CRL is complete for `certificate` (a CA or an end entity): not a delta, not indirect, not limited
    /// to some reasons or to the other kind of certificate, no unknown critical extension.
    func covers(_ certificate: Certificate) -> Bool {
        let scope = cossl_X509_CRL_scope(pointer)
        if scope & (COSSL_CRL_SCOPE_SOME_REASONS | COSSL_CRL_SCOPE_INDIRECT | COSSL_CRL_SCOPE_DELTA
                    | COSSL_CRL_SCOPE_MALFORMED | COSSL_CRL_SCOPE_UNKNOWN_CRITICAL) != 0 { return false }
        if scope & COSSL_CRL_SCOPE_ONLY_USER != 0, certificate.isCA { return false }
        if scope & COSSL_CRL_SCOPE_ONLY_CA != 0, !certificate.isCA { return false }
        return true
    }

    /// The entry for `certificate`, nil when it is not listed.
    func entry(for certificate: Certificate) -> (reason: CertificateRevocation.Reason?, revokedAt: Date)? {
        guard let entry = cossl_X509_CRL_entry(pointer, certificate.x509) else { return nil }
        let code = cossl_X509_REVOKED_reason(entry)
        return (code >= 0 ? CertificateRevocation.Reason(code: Int(code)) : nil,
                Certificate.date(X509_REVOKED_get0_revocationDate(entry)))
    }

    public static func == (lhs: CertificateRevocationList, rhs: CertificateRevocationList) -> Bool { lhs.digest == rhs.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }
}
