/// Why a notification could not be sent to systemd; the description is one actionable line.
public struct SystemdNotifyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public enum Kind: String, Sendable {
        /// `NOTIFY_SOCKET` is not an absolute path or an `@abstract` name, or is too long for `sockaddr_un`.
        case invalidAddress
        /// `socket(2)` failed.
        case socket
        /// `sendto(2)` failed (the receiver is gone, or the unit's sandbox forbids `AF_UNIX`).
        case send
    }

    /// What failed.
    public var kind: Kind
    /// The `NOTIFY_SOCKET` value involved.
    public var address: String
    /// The detail (an `strerror` text or the rule that was broken).
    public var message: String

    public init(_ kind: Kind, address: String, message: String) {
        self.kind = kind
        self.address = address
        self.message = message
    }

    public var description: String {
        switch kind {
        case .invalidAddress: return "NOTIFY_SOCKET=\(address): \(message)"
        case .socket: return "systemd notify: cannot create an AF_UNIX datagram socket: \(message)"
        case .send: return "systemd notify: cannot send to NOTIFY_SOCKET=\(address): \(message) (check RestrictAddressFamilies= allows AF_UNIX)"
        }
    }
}
