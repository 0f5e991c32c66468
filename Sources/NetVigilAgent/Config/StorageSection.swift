/// `storage:` — where history lives and for how long.
public struct StorageSection: ConfigSection, Equatable {
    public static let key = "storage"
    public static let allowedKeys = ["path", "retention"]

    /// SQLite database file. Relative paths are resolved against the working directory.
    public var path: String
    /// How long history is kept.
    public var retention: Duration

    public init() {
        path = ".netvigil/netvigil.sqlite"
        retention = .seconds(30 * 86_400)
    }

    public init(path: String, retention: Duration) {
        self.path = path
        self.retention = retention
    }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["path"] { path = try value.nonEmptyString() }
        if let value = mapping["retention"] { retention = try value.duration(minimum: .seconds(60)) }
    }
}
