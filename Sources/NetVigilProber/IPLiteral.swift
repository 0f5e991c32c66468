import Foundation

/// Recognises IPv4 and IPv6 literals (no SNI for them; host checks use the IP form).
enum IPLiteral {
    /// True when `host` is an IPv4 or IPv6 address literal (brackets allowed).
    static func isIP(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }
}
