import COpenSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where a store finds the system roots: OpenSSL's default certificate directory, read by subject hash when a
/// chain asks for a root, and the bundle (`SSL_CERT_FILE`, else OpenSSL's default `cert.pem`), parsed only when a
/// verification fails without it.
///
/// `X509_STORE_set_default_paths` parses the whole bundle up front: every root on the heap, which an agent probing a
/// few HTTPS targets (or only HTTP ones) would keep for its whole life without using most of them. On Debian the
/// directory and the bundle hold the same roots (`update-ca-certificates` writes both); where they differ, the first
/// verification that fails loads the bundle and runs again, so every outcome is the one the bundle gives.
final class SystemRootLocations: Sendable {
    /// The hashed directory; nil for OpenSSL's default (`SSL_CERT_DIR`, else OPENSSLDIR/certs).
    let directory: String?
    /// The bundle's path.
    let bundle: String
    private let bundleLoaded = Mutex<Bool>(false)

    init(directory: String? = nil, bundle: String) {
        self.directory = directory
        self.bundle = bundle
    }

    /// OpenSSL's default locations: `SSL_CERT_FILE` when set, else the default bundle, and the default directory.
    static func standard() -> SystemRootLocations {
        if let value = getenv(X509_get_default_cert_file_env()), value.pointee != 0 {
            return SystemRootLocations(bundle: String(cString: value))
        }
        return SystemRootLocations(bundle: String(cString: X509_get_default_cert_file()))
    }

    /// Adds the directory's lookups to `store`; false when OpenSSL cannot add them.
    func addLookups(to store: OpaquePointer) -> Bool {
        cossl_X509_STORE_add_default_lookups(store, directory) == 1
    }

    /// Whether the bundle is in the store (or loading it was tried).
    var isBundleLoaded: Bool { bundleLoaded.withLock { $0 } }

    /// Adds the bundle's certificates to `store`, once; a missing or unreadable bundle adds nothing, as with
    /// `X509_STORE_set_default_paths`. Concurrent callers return once the bundle is in the store.
    func loadBundle(into store: OpaquePointer) {
        bundleLoaded.withLock { loaded in
            guard !loaded else { return }
            if X509_STORE_load_file(store, bundle) != 1 { cossl_clear_errors() }
            loaded = true
        }
    }
}
