import Foundation

/// Durations on the command line: `500ms`, `10s`, `5m`, `72h`, `30d` (a bare number is seconds).
enum ProbeDuration {
    /// Seconds, or nil when `text` is not a duration.
    static func parse(_ text: String) -> TimeInterval? {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        for (suffix, factor) in units where value.hasSuffix(suffix) {
            if let number = Double(value.dropLast(suffix.count)), number >= 0 { return number * factor }
        }
        if let number = Double(value), number >= 0 { return number }
        return nil
    }
}
