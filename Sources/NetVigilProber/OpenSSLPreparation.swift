import COpenSSL

/// OpenSSL's once-per-process set-up.
public enum OpenSSLPreparation {
    /// Keeps OpenSSL's global state until the process is gone: without this, the first initialisation registers
    /// `OPENSSL_cleanup` with `atexit`, and a thread still inside OpenSSL when another calls `exit` (a daemon's probe
    /// during shutdown) crashes on the freed state. Call it before anything else uses OpenSSL.
    public static func keepStateUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
