import Foundation
import NIOCore

/// Where a revocation fetch may not connect.
///
/// CRL distribution points and OCSP responders come from the certificates a server presents: a chain that
/// validates can still name any URL, so without a guard a server could make the daemon fetch from the cloud
/// instance-metadata service (169.254.169.254, fd00:ec2::254, 100.100.100.200), other link-local hosts or the daemon's
/// own feed. The resolved addresses are checked, hop by hop (redirects included), not the URL's text, so a name that
/// resolves there (or a redirect that goes there) is refused too. Link-local and metadata addresses are allowed by the
/// policy's `revocation_fetch: { allow_link_local: true }` (private PKIs whose CRLs live there); the daemon's own
/// listeners are never allowed.
struct RevocationFetchGuard: Sendable {
    /// The policy's `revocation_fetch.allow_link_local`.
    var allowsLinkLocal: Bool
    /// The daemon's own listeners (``ProbeConfiguration/ownListeners``).
    var ownListeners: [OwnListener]
    /// Told of every refusal (log and metric).
    var refused: (@Sendable (RevocationFetchRefusal) -> Void)?

    /// Host names of metadata services (refused by name too: through a proxy the daemon never sees their address).
    static let metadataNames: Set<String> = ["metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                                             "instance-data.ec2.internal", "metadata.azure.internal"]
    /// Metadata services outside the link-local ranges: AWS's IPv6 one and Alibaba Cloud's.
    static let metadataAddresses: Set<String> = ["fd00:ec2::254", "100.100.100.200"]

    /// Why a connection to `address` (resolved from `host`) is refused; nil when it is allowed.
    func refusal(_ address: SocketAddress, host: String) -> RevocationFetchRefusal? {
        guard let text = address.ipAddress, let port = address.port else { return nil }
        let ip = Self.unmapped(text)
        if let listener = ownListeners.first(where: { $0.matches(ip, port: port) }) {
            return RevocationFetchRefusal(host: host, address: Self.endpoint(ip, port),
                                          reason: "it is this daemon's own \(listener.name) (\(listener.address))")
        }
        guard !allowsLinkLocal else { return nil }
        if Self.metadataAddresses.contains(ip) {
            return linkLocal(host: host, address: Self.endpoint(ip, port), what: "a cloud instance-metadata address")
        }
        if Self.isLinkLocal(ip) {
            return linkLocal(host: host, address: Self.endpoint(ip, port),
                             what: ip == "169.254.169.254" ? "the cloud instance-metadata address" : "a link-local address")
        }
        return nil
    }

    /// Why a fetch from `host` is refused by its name or literal alone (the proxy's case: it resolves the name).
    func refusal(host: String, port: Int) -> RevocationFetchRefusal? {
        let bare = ConnectOverride.bare(host).lowercased()
        if let address = try? SocketAddress(ipAddress: bare, port: port) { return refusal(address, host: bare) }
        guard !allowsLinkLocal, Self.metadataNames.contains(bare.hasSuffix(".") ? String(bare.dropLast()) : bare) else { return nil }
        return linkLocal(host: bare, address: "\(bare):\(port)", what: "a cloud instance-metadata name")
    }

    /// `addresses` without the refused ones; throws the first refusal when none is left. Each refusal is reported.
    func allowed(_ addresses: [SocketAddress], host: String) throws(ProbeError) -> [SocketAddress] {
        var first: RevocationFetchRefusal?
        let kept = addresses.filter { address in
            guard let refusal = refusal(address, host: host) else { return true }
            refused?(refusal)
            first = first ?? refusal
            return false
        }
        if kept.isEmpty, let first { throw ProbeError(.connect, first.message) }
        return kept
    }

    private func linkLocal(host: String, address: String, what: String) -> RevocationFetchRefusal {
        RevocationFetchRefusal(host: host, address: address,
                               reason: "it is \(what); the TLS policy's revocation_fetch: { allow_link_local: true } allows it")
    }

    /// 169.254.0.0/16 and fe80::/10.
    static func isLinkLocal(_ ip: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return bytes[0] == 169 && bytes[1] == 254
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, ip, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        return bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
    }

    /// An IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) as its IPv4 form; others unchanged.
    static func unmapped(_ ip: String) -> String {
        var v6 = in6_addr()
        guard ip.contains(":"), inet_pton(AF_INET6, ip, &v6) == 1 else { return ip }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        guard bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return ip }
        return bytes[12...].map(String.init).joined(separator: ".")
    }

    static func endpoint(_ ip: String, _ port: Int) -> String { ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
}

/// One refused revocation fetch, as the log line and the probe's finding tell it.
public struct RevocationFetchRefusal: Sendable, Equatable {
    /// The URL's host.
    public var host: String
    /// The address (and port) it was refused at.
    public var address: String
    /// Why, and how to allow it when that can be allowed.
    public var reason: String

    /// `revocation fetch refused: 169.254.169.254:80 (host h): it is …`.
    public var message: String {
        "revocation fetch refused: \(address)" + (address.hasPrefix(host) || address.hasPrefix("[\(host)]") ? "" : " (\(host))")
            + ": \(reason)"
    }
}
