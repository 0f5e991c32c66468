import Foundation
import Synchronization

/// TCP ports for the test servers on loopback.
///
/// XCTest builds every test case object when the run starts, so a port chosen in a property initializer is used
/// minutes later. A port the kernel picked (a bind to port 0) lies in its ephemeral range, and by then it can be the
/// local port of any outgoing connection or of a listener bound to port 0, and the kernel may even pick it again. So
/// these ports come from outside the ephemeral range (`net.ipv4.ip_local_port_range`), where the kernel never picks
/// one by itself; none is handed out twice in one process, and each was free on 127.0.0.1 and ::1 when handed out.
enum TestPorts {
    /// Where handed-out ports come from: 20000 up to the start of the ephemeral range (20000–32767 with Linux's
    /// default 32768–60999), else above its end; only if neither leaves 1,000 ports, 20000–20999 regardless.
    static let range: Range<Int> = {
        let ephemeral = ephemeralRange()
        if ephemeral.lowerBound >= 21_000 { return 20_000..<ephemeral.lowerBound }
        if ephemeral.upperBound <= 64_536 { return (ephemeral.upperBound + 1)..<65_536 }
        return 20_000..<21_000
    }()

    /// How many ports were handed out; the first comes from a random place in `range` (another test process on the
    /// machine starts elsewhere).
    private static let handedOut = Mutex(Int.random(in: 0..<range.count))

    /// A port not handed out before by this process and free a moment ago.
    static func take() -> Int {
        for _ in 0..<range.count {
            let port = handedOut.withLock { next in
                defer { next += 1 }
                return range.lowerBound + next % range.count
            }
            if isFree(port) { return port }
        }
        fatalError("no free TCP port in \(range)")
    }

    /// The kernel's ephemeral port range, `net.ipv4.ip_local_port_range` (Linux's default if it cannot be read).
    private static func ephemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
        return bounds[0]...bounds[1]
    }

    /// Whether nothing holds `port` on 127.0.0.1 or ::1 (listening, connected or in TIME_WAIT).
    private static func isFree(_ port: Int) -> Bool {
        var four = sockaddr_in()
        four.sin_family = sa_family_t(AF_INET)
        four.sin_addr.s_addr = inet_addr("127.0.0.1")
        four.sin_port = UInt16(port).bigEndian
        var six = sockaddr_in6()
        six.sin6_family = sa_family_t(AF_INET6)
        six.sin6_addr = in6addr_loopback
        six.sin6_port = UInt16(port).bigEndian
        // ::1 may be missing (no IPv6): only "in use" counts against the port there.
        return binds(&four, family: AF_INET) == 0 && binds(&six, family: AF_INET6) != EADDRINUSE
    }

    /// Binds a new socket of `family` to `address` and closes it: 0, or the errno of the failure.
    private static func binds<Address>(_ address: inout Address, family: Int32) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        return result == 0 ? 0 : errno
    }
}
