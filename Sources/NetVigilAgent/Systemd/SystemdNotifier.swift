#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sends `sd_notify(3)` messages to the service manager without libsystemd: one `AF_UNIX` datagram to `$NOTIFY_SOCKET`.
///
/// The socket may be a file-system path (`/run/systemd/notify`) or an abstract name (`@name`, sent with a leading NUL
/// byte). A notifier exists only when `NOTIFY_SOCKET` is set; outside systemd there is nothing to notify.
public struct SystemdNotifier: Sendable {
    /// The `NOTIFY_SOCKET` value, as systemd passed it.
    public let address: String
    private let socketAddress: [UInt8]

    /// A notifier for `environment["NOTIFY_SOCKET"]`, or `nil` when it is unset or empty.
    /// - Throws: `.invalidAddress` when the value is neither an absolute path nor `@abstract`, or is too long.
    public init?(environment: [String: String]) throws(SystemdNotifyError) {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else { return nil }
        try self.init(address: address)
    }

    /// A notifier for a socket address in `NOTIFY_SOCKET` syntax.
    public init(address: String) throws(SystemdNotifyError) {
        var bytes: [UInt8]
        if address.hasPrefix("@") {
            bytes = [0] + Array(address.utf8.dropFirst())
            guard bytes.count > 1 else {
                throw SystemdNotifyError(.invalidAddress, address: address, message: "an abstract name needs characters after @")
            }
        } else if address.hasPrefix("/") {
            bytes = Array(address.utf8) + [0]
        } else {
            throw SystemdNotifyError(.invalidAddress, address: address,
                                     message: "expected an absolute socket path or an @abstract name")
        }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard bytes.count <= capacity else {
            throw SystemdNotifyError(.invalidAddress, address: address,
                                     message: "longer than the \(capacity - 1) bytes a unix socket address can hold")
        }
        self.address = address
        self.socketAddress = bytes
    }

    /// Sends `messages` as one datagram (`KEY=VALUE` lines). Never blocks: the datagram is queued or the call fails.
    public func send(_ messages: [SystemdNotifyMessage]) throws(SystemdNotifyError) {
        let text = messages.map(\.assignment).joined(separator: "\n") + "\n"
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemdNotifyError(.socket, address: address, message: Self.errnoText()) }
        defer { close(descriptor) }

        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            path.copyBytes(from: socketAddress)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = socklen_t(pathOffset + socketAddress.count)
        let payload = Array(text.utf8)
        let sent = payload.withUnsafeBytes { bytes in
            withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                }
            }
        }
        guard sent == payload.count else {
            throw SystemdNotifyError(.send, address: address, message: sent < 0 ? Self.errnoText() : "short write")
        }
    }

    /// Convenience for a single message.
    public func send(_ message: SystemdNotifyMessage) throws(SystemdNotifyError) {
        try send([message])
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
