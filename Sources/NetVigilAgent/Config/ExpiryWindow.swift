/// How close to its end a certificate (or a policy's pins) counts as expiring: the `within` of `cert_expiring`
/// and `pins_expiring`.
public enum ExpiryWindow: Sendable, Equatable {
    /// The built-in window: `duration`, except for certificates valid at most 30 days, which get a third of their
    /// lifetime (a 7-day certificate is expiring in its last 56 hours, not every day of its life).
    case automatic(Duration)
    /// A fixed duration (`within: 14d`).
    case duration(Duration)
    /// A share of each certificate's lifetime (`within: 33%`), 0 < share ≤ 1.
    case share(Double)

    /// Certificates valid at most this long are short-lived: the automatic window is a third of their lifetime.
    public static let shortLivedLifetime: Duration = .seconds(30 * 86_400)

    /// The window in milliseconds for something valid for `lifetime` milliseconds (nil: unknown, as for pins).
    public func milliseconds(lifetime: Int64?) -> Int64 {
        switch self {
        case .automatic(let duration):
            if let lifetime, lifetime > 0, lifetime <= ConfigDuration.milliseconds(Self.shortLivedLifetime) { return lifetime / 3 }
            return ConfigDuration.milliseconds(duration)
        case .duration(let duration):
            return ConfigDuration.milliseconds(duration)
        case .share(let share):
            guard let lifetime, lifetime > 0 else { return 0 }
            return Int64((Double(lifetime) * share).rounded())
        }
    }

    /// The window's duration; zero for a share.
    public var duration: Duration {
        switch self {
        case .automatic(let duration), .duration(let duration): duration
        case .share: .zero
        }
    }

    /// `14d`, `14d (a third of the lifetime for certificates valid ≤ 30d)` or `33%`.
    public var description: String {
        switch self {
        case .automatic(let duration): "\(ConfigDuration.format(duration)) (a third of the lifetime for certificates valid ≤ 30d)"
        case .duration(let duration): ConfigDuration.format(duration)
        case .share(let share): "\(Self.percent(share))%"
        }
    }

    private static func percent(_ share: Double) -> String {
        let value = share * 100
        return value == value.rounded() ? "\(Int(value))" : "\(value)"
    }

    /// Reads `within:` of `kind`: a duration of at least 60s, or for `cert_expiring` a percentage above 0 and at most 100.
    init(reading value: ConfigValue, kind: AlertRuleKind) throws {
        let text = try value.string().trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("%") {
            guard kind == .certExpiring else {
                throw value.error("a share of the lifetime applies to cert_expiring only; use a duration such as 30d")
            }
            let number = text.dropLast().trimmingCharacters(in: .whitespaces)
            guard let percent = Double(number), percent.isFinite, percent > 0, percent <= 100 else {
                throw value.error("expected a share of the certificate's lifetime above 0% and at most 100%, such as 33%")
            }
            self = .share(percent / 100)
        } else {
            self = .duration(try value.duration(minimum: .seconds(60)))
        }
    }
}
