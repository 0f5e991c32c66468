import Foundation
import NIOCore

/// getaddrinfo(3) for one host and port.
enum Resolver {
    /// The address of an IP literal `host` (what getaddrinfo would return, without a lookup); nil for a name.
    /// Throws when the literal is not of the allowed family.
    static func literal(_ host: String, port: Int, family: AddressFamily) throws(ProbeError) -> SocketAddress? {
        guard let address = try? SocketAddress(ipAddress: host, port: port) else { return nil }  // parses literals only
        let isIPv6 = address.protocol == .inet6
        if (family == .ipv4 && isIPv6) || (family == .ipv6 && !isIPv6) {
            throw ProbeError(.dns, "\(host) is not an \(family.rawValue) address")
        }
        return address
    }

    /// The addresses of `host`, in getaddrinfo order, restricted to `family`.
    static func resolve(host: String, port: Int, family: AddressFamily) throws(ProbeError) -> [SocketAddress] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        switch family {
        case .any: hints.ai_family = AF_UNSPEC
        case .ipv4: hints.ai_family = AF_INET
        case .ipv6: hints.ai_family = AF_INET6
        }
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(bare, String(port), &hints, &list)
        guard status == 0 else {
            // getaddrinfo reports a full descriptor table as "name unknown" or a system error: tell the two apart.
            if let exhaustion = ResourceExhaustion.current() {
                throw ProbeError(.resourceExhausted, "cannot resolve \(bare): \(exhaustion)")
            }
            throw ProbeError(.dns, "cannot resolve \(bare): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            let ok: Bool
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
                }
            case AF_INET6:
                ok = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil
                }
            default:
                ok = false
            }
            guard ok else { continue }
            let literal = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let socketAddress = try? SocketAddress(ipAddress: literal, port: port), !addresses.contains(socketAddress) {
                addresses.append(socketAddress)
            }
        }
        guard !addresses.isEmpty else { throw ProbeError(.dns, "\(bare) has no \(family == .any ? "" : family.rawValue + " ")address") }
        return addresses
    }
}
