/// `alerts:` — where alerts go (sinks), when they fire (rules) and how failed deliveries are retried.
public struct AlertsSection: ConfigSection, Equatable {
    public static let key = "alerts"
    public static let allowedKeys = ["sinks", "rules", "retry"]

    /// The configured sinks, in order; names are unique.
    public var sinks: [AlertSink]
    /// The four rules (all on by default).
    public var rules: AlertRules
    /// Delivery backoff.
    public var retry: AlertRetry

    /// No sinks, default rules and retry.
    public init() {
        sinks = []
        rules = AlertRules()
        retry = AlertRetry()
    }

    public init(sinks: [AlertSink], rules: AlertRules = AlertRules(), retry: AlertRetry = AlertRetry()) {
        self.sinks = sinks
        self.rules = rules
        self.retry = retry
    }

    /// Names of the sinks, so target `alerts: [...]` references can be checked.
    public var sinkNames: [String] { sinks.map(\.name) }
    /// Names of sinks refused with an error in the same load: a target naming one is not reported a second time.
    var failedSinkNames: [String] = []

    /// The sink called `name`.
    public func sink(named name: String) -> AlertSink? {
        sinks.first { $0.name == name }
    }

    public init(reading mapping: ConfigMapping) throws {
        var collector = ConfigErrorCollector()
        try self.init(mapping: mapping, includedSinkLists: [], collector: &collector)
        try collector.finish()
    }

    /// Reads the section (absent: defaults) plus the `alerts.sinks` lists of included files; each sink, the rules and
    /// the retry settings with an error are recorded and left out.
    init(value: ConfigValue?, includedSinkLists: [ConfigValue], collector: inout ConfigErrorCollector) throws {
        let mapping = try value.flatMap { value in try collector.attempt { try value.mapping(allowedKeys: Self.allowedKeys) } }
        try self.init(mapping: mapping, includedSinkLists: includedSinkLists, collector: &collector)
    }

    private init(mapping: ConfigMapping?, includedSinkLists: [ConfigValue], collector: inout ConfigErrorCollector) throws {
        self.init()
        var firstByName: [String: ConfigValue] = [:]
        for list in [mapping?["sinks"]].compactMap({ $0 }) + includedSinkLists {
            guard let items = try collector.attempt({ try list.sequence() }) else { continue }
            for item in items {
                let sink = try collector.attempt { () throws -> AlertSink in
                    let sink = try AlertSink(reading: item)
                    let name = try item.mapping(allowedKeys: AlertSink.allowedKeys).required("name")
                    if let first = firstByName[sink.name] {
                        throw name.error("sink name \"\(sink.name)\" is used twice (first at \(first.location)); names must be unique")
                    }
                    firstByName[sink.name] = name
                    return sink
                }
                if let sink { sinks.append(sink) } else if let name = Self.readableName(of: item), firstByName[name] == nil {
                    // A sink with an error still has its name: targets naming it are not reported as well.
                    failedSinkNames.append(name)
                }
            }
        }
        if let value = mapping?["rules"] {
            rules = try collector.attempt {
                try AlertRules(reading: value.mapping(allowedKeys: AlertRuleKind.allCases.map(\.rawValue)))
            } ?? rules
        }
        if let value = mapping?["retry"] {
            retry = try collector.attempt { try AlertRetry(reading: value.mapping(allowedKeys: AlertRetry.allowedKeys)) } ?? retry
        }
    }

    /// The `name:` of a sink entry, when it is a plain string.
    private static func readableName(of item: ConfigValue) -> String? {
        guard case .mapping(let mapping) = item.node else { return nil }
        for (key, value) in mapping where key.string == "name" { return value.string }
        return nil
    }
}

/// `alerts.retry` — exponential backoff with full jitter between `initial` and `max`.
public struct AlertRetry: Sendable, Equatable {
    static let allowedKeys = ["initial", "max"]

    /// Upper bound of the first retry delay (and lower bound of every delay).
    public var initial: Duration
    /// Largest delay between two attempts.
    public var max: Duration

    public init(initial: Duration = .seconds(1), max: Duration = .seconds(300)) {
        self.initial = initial
        self.max = max
    }

    /// The delay before attempt `attempts + 1`, given `attempts` failed ones: uniformly random between
    /// `initial` and `min(max, initial × 2^(attempts-1))`.
    public func delay(afterAttempts attempts: Int) -> Duration {
        let low = ConfigDuration.milliseconds(initial)
        let cap = ConfigDuration.milliseconds(max)
        let exponent = Swift.min(Swift.max(attempts - 1, 0), 40)
        let (grown, overflow) = low.multipliedReportingOverflow(by: Int64(1) << Int64(exponent))
        let high = Swift.max(low, overflow ? cap : Swift.min(grown, cap))
        return .milliseconds(Int64.random(in: low...high))
    }

    init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["initial"] { initial = try value.duration(minimum: .milliseconds(10)) }
        if let value = mapping["max"] {
            max = try value.duration(minimum: .milliseconds(10))
            if max < initial {
                throw value.error("must not be shorter than retry.initial (\(ConfigDuration.format(initial)))")
            }
        }
    }
}
