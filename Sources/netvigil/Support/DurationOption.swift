import Foundation
import NetVigilAgent

/// Durations on the command line, as in the configuration: `500ms`, `10s`, `5m`, `72h`, `30d`, `1h30m`, also with
/// decimals (`1.5s`); a bare number is seconds.
enum DurationOption {
    /// Seconds, or nil when `text` is not a duration.
    static func parse(_ text: String) -> TimeInterval? {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        for (suffix, factor) in units where value.hasSuffix(suffix) {
            if let number = Double(value.dropLast(suffix.count)), number >= 0, number.isFinite { return number * factor }
        }
        if let number = Double(value), number >= 0, number.isFinite { return number }
        return ConfigDuration.parse(value).map { Double(ConfigDuration.milliseconds($0)) / 1_000 }
    }

    /// A positive `--timeout`-style value in seconds; nil when `text` is nil; a usage error naming `option` otherwise.
    static func positive(_ text: String?, option: String) throws -> TimeInterval? {
        guard let text else { return nil }
        guard let seconds = parse(text), seconds > 0 else {
            throw CLIFailure(.usage, "\(option): expected a positive duration such as 2s, 500ms or 1m, got \"\(text)\"")
        }
        return seconds
    }
}
