import NetVigilAgent
import NetVigilStore

/// What the feed reads from the running daemon.
public struct FeedState: Sendable {
    public let store: Store
    public let startedAt: Timestamp
    public let version: String

    public init(store: Store, startedAt: Timestamp = .now(), version: String = NetVigilVersion.current) {
        self.store = store
        self.startedAt = startedAt
        self.version = version
    }
}
