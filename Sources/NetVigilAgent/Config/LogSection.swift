import Logging

/// `log:` — logging settings.
public struct LogSection: ConfigSection, Equatable {
    public static let key = "log"
    public static let allowedKeys = ["level"]

    /// Minimum level logged.
    public var level: Logger.Level

    public init() { level = .info }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["level"] {
            let name = try value.oneOf(Logger.Level.allCases.map(\.rawValue))
            level = Logger.Level(rawValue: name) ?? .info
        }
    }
}
