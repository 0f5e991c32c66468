import NetVigilStore

/// An alert that is firing now, for the status feed.
public struct FiringAlert: Sendable, Equatable, Codable {
    public var target: String
    /// Rule kind, e.g. `pin_mismatch`.
    public var kind: String
    /// When it started firing.
    public var since: Timestamp
    /// The latest message.
    public var message: String

    public init(target: String, kind: String, since: Timestamp, message: String) {
        self.target = target
        self.kind = kind
        self.since = since
        self.message = message
    }
}
