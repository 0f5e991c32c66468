import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small reads of the system: sysfs link details and host name resolution.
enum SystemProbes {
    /// `DEVTYPE=` from `/sys/class/net/NAME/uevent` and `phy80211`/`wireless` presence. Ignored when the
    /// sysfs entry belongs to another namespace (its `ifindex` differs), e.g. when the watcher entered
    /// a namespace with setns but /sys is the host's.
    static func sysfsLink(name: String, index: Int32) -> (devtype: String?, wireless: Bool) {
        guard !name.isEmpty, !name.contains("/") else { return (nil, false) }
        let base = "/sys/class/net/\(name)"
        guard let ifindex = try? String(contentsOfFile: base + "/ifindex", encoding: .utf8),
              Int32(ifindex.trimmingCharacters(in: .whitespacesAndNewlines)) == index
        else { return (nil, false) }
        var devtype: String?
        if let uevent = try? String(contentsOfFile: base + "/uevent", encoding: .utf8) {
            for line in uevent.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
                devtype = String(line.dropFirst("DEVTYPE=".count))
            }
        }
        let wireless = access(base + "/phy80211", F_OK) == 0 || access(base + "/wireless", F_OK) == 0
        return (devtype, wireless)
    }

    /// getaddrinfo(3) for a host name: its addresses in resolver order, without duplicates; empty when
    /// the name does not resolve.
    static func resolve(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let sa = entry.pointee.ai_addr {
                var address: IPAddress?
                if entry.pointee.ai_family == AF_INET {
                    var sin = sockaddr_in()
                    memcpy(&sin, sa, MemoryLayout<sockaddr_in>.size)
                    address = IPAddress(family: .ipv4, tuple: sin.sin_addr)
                } else if entry.pointee.ai_family == AF_INET6 {
                    var sin6 = sockaddr_in6()
                    memcpy(&sin6, sa, MemoryLayout<sockaddr_in6>.size)
                    address = IPAddress(family: .ipv6, tuple: sin6.sin6_addr)
                }
                if let address, !result.contains(address) { result.append(address) }
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }
}
