/// `storage:` — where history lives and for how long.
public struct StorageSection: ConfigSection, Equatable {
    public static let key = "storage"
    public static let allowedKeys = ["path", "retention", "max_queued_rows"]

    /// SQLite database file. Relative paths are resolved against the working directory.
    public var path: String
    /// How long history is kept.
    public var retention: Duration
    /// Rows kept in memory while the store cannot be written (disk full); beyond it the oldest probe and
    /// reachability rows are dropped and counted (alert rows never are).
    public var maxQueuedRows: Int

    public init() {
        self.init(path: ".netvigil/netvigil.sqlite", retention: .seconds(30 * 86_400))
    }

    public init(path: String, retention: Duration, maxQueuedRows: Int = 10_000) {
        self.path = path
        self.retention = retention
        self.maxQueuedRows = maxQueuedRows
    }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["path"] { path = try value.nonEmptyString() }
        if let value = mapping["retention"] { retention = try value.duration(minimum: .seconds(60)) }
        if let value = mapping["max_queued_rows"] { maxQueuedRows = try value.int(in: 100...1_000_000) }
    }
}
