import COpenSSL

/// How this process's OpenSSL decodes and uses RSA and EC public keys.
///
/// OpenSSL 3.0 rebuilds a provider decoder chain for the key of every certificate it parses, which costs about three
/// quarters of a `d2i_X509` (135 of 177 µs on the benchmark machine) and was the largest single cost of a probe.
/// `prepare()` registers OpenSSL's own built-in RSA and EC key methods (through an ENGINE that offers nothing else),
/// so parsing takes the built-in decoder and signatures and key exchanges run OpenSSL's built-in code.
/// `NETVIGIL_OPENSSL_BUILTIN_KEYS=0` in the environment keeps OpenSSL's default provider path.
public enum OpenSSLKeyMethods {
    /// The path in use.
    public enum Mode: String, Sendable {
        /// OpenSSL's built-in RSA and EC methods (the fast path).
        case builtin
        /// OpenSSL's default provider path, because `NETVIGIL_OPENSSL_BUILTIN_KEYS=0`.
        case providersByEnvironment = "providers (NETVIGIL_OPENSSL_BUILTIN_KEYS=0)"
        /// OpenSSL's default provider path, because this OpenSSL has no ENGINE support.
        case providersUnavailable = "providers (no ENGINE support in this OpenSSL)"
    }

    /// Sets the methods up once per process (cheap on later calls) and returns the path in use.
    /// Call it before the first certificate is parsed; certificates parsed earlier keep the path they were parsed with.
    @discardableResult
    public static func prepare() -> Mode {
        switch cossl_use_builtin_key_methods() {
        case 1: return .builtin
        case 0: return .providersByEnvironment
        default: return .providersUnavailable
        }
    }
}
