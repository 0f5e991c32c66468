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

    /// The sink called `name`.
    public func sink(named name: String) -> AlertSink? {
        sinks.first { $0.name == name }
    }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let list = mapping["sinks"] {
            for item in try list.sequence() {
                let sink = try AlertSink(reading: item)
                if sinks.contains(where: { $0.name == sink.name }) {
                    let name = try item.mapping(allowedKeys: AlertSink.allowedKeys).required("name")
                    throw name.error("sink name \"\(sink.name)\" is used twice; names must be unique")
                }
                sinks.append(sink)
            }
        }
        if let value = mapping["rules"] {
            rules = try AlertRules(reading: value.mapping(allowedKeys: AlertRuleKind.allCases.map(\.rawValue)))
        }
        if let value = mapping["retry"] {
            retry = try AlertRetry(reading: value.mapping(allowedKeys: AlertRetry.allowedKeys))
        }
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
