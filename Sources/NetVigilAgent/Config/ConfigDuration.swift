import NetVigilConcurrency

/// Parsing and formatting of configuration durations: `500ms`, `10s`, `5m`, `6h`, `30d`, combined as `1h30m`.
public enum ConfigDuration {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000), ("w", 604_800_000),
    ]

    /// Parses `text`; nil when it is not a duration.
    public static func parse(_ text: String) -> Duration? {
        var rest = ConfigText.trimmingBlanks(text)
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard let unit = units.first(where: { $0.suffix == letters }) else { return nil }
            rest = rest.dropFirst(letters.count)
            let (product, overflow) = number.multipliedReportingOverflow(by: unit.milliseconds)
            guard !overflow else { return nil }
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow2 else { return nil }
            total = sum
        }
        return .milliseconds(total)
    }

    /// Formats a duration in the largest unit that divides it exactly, e.g. `30d`, `90s`, `500ms`.
    public static func format(_ duration: Duration) -> String {
        let ms = milliseconds(duration)
        if ms == 0 { return "0s" }
        for unit in units.reversed() where unit.suffix != "w" && ms % unit.milliseconds == 0 {
            return "\(ms / unit.milliseconds)\(unit.suffix)"
        }
        return "\(ms)ms"
    }

    /// Whole milliseconds in `duration`.
    public static func milliseconds(_ duration: Duration) -> Int64 { duration.inMilliseconds }
}
