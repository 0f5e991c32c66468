/// `scheduler:` — how probes share the machine.
public struct SchedulerSection: ConfigSection, Equatable {
    public static let key = "scheduler"
    public static let allowedKeys = ["concurrency"]

    /// Probes running at once across all targets (default 64).
    public var concurrency: Int

    public init() { concurrency = 64 }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["concurrency"] { concurrency = try value.int(in: 1...4_096) }
    }
}
