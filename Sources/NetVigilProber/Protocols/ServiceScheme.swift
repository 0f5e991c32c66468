import Foundation

/// A non-HTTP target scheme: a TLS service reached directly (`tls`, `smtps`, `imaps`, `pop3s`, `ldaps`) or
/// through its protocol's STARTTLS upgrade (`smtp`, `submission`, `imap`, `pop3`, `ldap`, `postgres`). Every one
/// gets the trust policy, pins and results of https:// targets; none sends application data or credentials.
public enum ServiceScheme: String, Sendable, CaseIterable {
    case tls, smtp, submission, smtps, imap, imaps, pop3, pop3s, ldap, ldaps, postgres

    /// The scheme of `url`, nil for http, https and anything unknown. `postgresql://` is read as `postgres://`.
    public init?(url: URL) {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        self.init(name: scheme)
    }

    /// The scheme named `name` (lower case), accepting `postgresql` for `postgres`.
    public init?(name: String) {
        self.init(rawValue: name == "postgresql" ? "postgres" : name)
    }

    /// The IANA port, nil for `tls` (its URL must name the port).
    public var defaultPort: Int? {
        switch self {
        case .tls: nil
        case .smtp: 25
        case .submission: 587
        case .smtps: 465
        case .imap: 143
        case .imaps: 993
        case .pop3: 110
        case .pop3s: 995
        case .ldap: 389
        case .ldaps: 636
        case .postgres: 5432
        }
    }

    /// Whether the connection starts with a plaintext negotiation (the `starttls` phase).
    public var usesSTARTTLS: Bool {
        switch self {
        case .smtp, .submission, .imap, .pop3, .ldap, .postgres: true
        case .tls, .smtps, .imaps, .pop3s, .ldaps: false
        }
    }

    /// A fresh negotiation for one connection.
    func negotiation() -> any ServiceNegotiation {
        switch self {
        case .tls: TLSOnlyNegotiation()
        case .smtp, .submission: SMTPNegotiation(implicitTLS: false)
        case .smtps: SMTPNegotiation(implicitTLS: true)
        case .imap: IMAPNegotiation(implicitTLS: false)
        case .imaps: IMAPNegotiation(implicitTLS: true)
        case .pop3: POP3Negotiation(implicitTLS: false)
        case .pop3s: POP3Negotiation(implicitTLS: true)
        case .ldap: LDAPNegotiation(implicitTLS: false)
        case .ldaps: LDAPNegotiation(implicitTLS: true)
        case .postgres: PostgresNegotiation()
        }
    }
}
