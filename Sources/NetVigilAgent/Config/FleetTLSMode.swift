/// How the connection to PostgreSQL uses TLS (`fleet.tls.mode`, `--tls`), named as libpq's `sslmode` values.
public enum FleetTLSMode: String, Sendable, Equatable, CaseIterable {
    /// TLS, the chain verified against the CA (`ca`, or the system's) and the certificate's name against the host.
    case verifyFull = "verify-full"
    /// TLS without verification: encrypted, but open to an active attacker.
    case require
    /// No TLS; only for a loopback host.
    case disable

    /// The default for `url`: verify-full unless the host is loopback.
    public static func defaultMode(for url: PostgresURL) -> FleetTLSMode {
        url.isLoopback ? .disable : .verifyFull
    }
}
