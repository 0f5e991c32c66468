import COpenSSL
import Foundation

/// Why a trust store could not be built.
public enum TrustStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configured CA file or directory could not be loaded.
    case certificate(CertificateError)
    /// OpenSSL could not load its default trust locations.
    case systemRootsUnavailable(String)
    /// OpenSSL failed to allocate or fill the store.
    case openSSL(String)

    public var description: String {
        switch self {
        case .certificate(let error): return "CA certificates: \(error)"
        case .systemRootsUnavailable(let detail): return "system root certificates cannot be loaded: \(detail)"
        case .openSSL(let detail): return "OpenSSL trust store: \(detail)"
        }
    }
}

/// Trust anchors: the system store (OpenSSL default paths, `/etc/ssl/certs`) and/or configured CA certificates.
///
/// Built once and shared: the underlying `X509_STORE` is only read by evaluations (OpenSSL locks its lookups).
public final class TrustStore: @unchecked Sendable {
    /// Whether the OpenSSL default locations (`openssl version -d`, `SSL_CERT_FILE`, `SSL_CERT_DIR`) are anchors.
    public let usesSystemRoots: Bool
    /// The configured anchors (not including system roots), in load order.
    public let anchors: [Certificate]

    let store: OpaquePointer
    /// Where the system roots are, when they are anchors: see ``SystemRootLocations``.
    let systemRootLocations: SystemRootLocations?
    /// Successful verifications against this store (see `ChainVerifier.verify`).
    let verifiedChains: VerifiedChainCache
    private let anchorsByPointer: [OpaquePointer: Certificate]

    /// Builds a store.
    /// - Parameters:
    ///   - systemRoots: include the OpenSSL default trust locations.
    ///   - caPaths: CA files (DER, PEM, bundles) or directories of `.pem`/`.crt`/`.cer`/`.der` files.
    ///   - anchors: further anchor certificates.
    ///   - remembersVerifications: answer a chain verified successfully before from memory while it is still inside its
    ///     validity periods (`VerifiedChainCache`); false verifies every time (benchmarks of the verification itself).
    public convenience init(systemRoots: Bool = true, caPaths: [String] = [], anchors: [Certificate] = [],
                            remembersVerifications: Bool = true) throws(TrustStoreError) {
        try self.init(systemRoots: systemRoots ? .standard() : nil, caPaths: caPaths, anchors: anchors,
                      remembersVerifications: remembersVerifications)
    }

    /// Builds a store whose system roots are those of `systemRoots` (nil: none).
    init(systemRoots: SystemRootLocations?, caPaths: [String] = [], anchors: [Certificate] = [],
         remembersVerifications: Bool = true) throws(TrustStoreError) {
        verifiedChains = VerifiedChainCache(enabled: remembersVerifications)
        var all = anchors
        do {
            all += try Certificate.load(paths: caPaths)
        } catch {
            throw .certificate(error)
        }
        guard let store = X509_STORE_new() else { throw .openSSL("X509_STORE_new failed") }
        cossl_clear_errors()
        if let systemRoots, !systemRoots.addLookups(to: store) {
            var buffer = [CChar](repeating: 0, count: 256)
            cossl_last_error_string(&buffer, buffer.count)
            X509_STORE_free(store)
            throw .systemRootsUnavailable(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var byPointer: [OpaquePointer: Certificate] = [:]
        var unique: [Certificate] = []
        for certificate in all where !unique.contains(certificate) {
            unique.append(certificate)
            // Adding a certificate that is already present (e.g. also a system root) is not an error in OpenSSL 3.
            if X509_STORE_add_cert(store, certificate.x509) != 1 {
                cossl_clear_errors()
            }
            byPointer[certificate.x509] = certificate
        }
        cossl_clear_errors()
        self.store = store
        self.usesSystemRoots = systemRoots != nil
        self.systemRootLocations = systemRoots
        self.anchors = unique
        self.anchorsByPointer = byPointer
    }

    /// The system roots only.
    public static func system() throws(TrustStoreError) -> TrustStore {
        try TrustStore(systemRoots: true)
    }

    deinit {
        X509_STORE_free(store)
    }

    /// True when `anchor` is a system root and no configured anchor: a chain that ends there is publicly trusted.
    func isSystemRoot(_ anchor: Certificate?) -> Bool {
        guard usesSystemRoots, let anchor else { return false }
        return !anchors.contains(anchor)
    }

    /// The configured anchor wrapping `pointer`, if it is one of ours.
    func knownAnchor(_ pointer: OpaquePointer) -> Certificate? {
        anchorsByPointer[pointer]
    }
}
