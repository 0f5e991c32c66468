#if canImport(Glibc)
import Glibc
#endif

/// Errors of the reachability module, each with an actionable one-line message.
public enum ReachabilityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A target string that is neither `default`, an IP address nor a host name.
    case invalidTarget(String, reason: String)
    /// A netlink system call failed (`operation`, errno).
    case netlink(operation: String, errno: Int32)
    /// The network namespace file could not be opened or entered.
    case namespace(path: String, errno: Int32)
    /// The monitor was stopped or never started.
    case notRunning

    public var description: String {
        switch self {
        case let .invalidTarget(target, reason):
            return "invalid reachability target \"\(target)\": \(reason)"
        case let .netlink(operation, code):
            return "netlink \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
                + (code == EPERM || code == EACCES ? "; run as root or with CAP_NET_ADMIN" : "")
        case let .namespace(path, code):
            return "cannot enter network namespace \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .notRunning:
            return "the reachability monitor is not running; call start() first"
        }
    }
}
