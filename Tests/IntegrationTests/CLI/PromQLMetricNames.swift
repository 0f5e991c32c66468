import Foundation

/// The metric names a PromQL expression selects, found lexically (no Prometheus release here offers
/// `/api/v1/parse_query`): string literals, label matchers, ranges and grouping label lists are removed first, then
/// every remaining identifier that is neither a keyword nor followed by `(` (a function or aggregation) is a name.
enum PromQLMetricNames {
    private static let keywords: Set<String> = [
        "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right",
        "inf", "nan",
    ]

    static func names(in expression: String) -> Set<String> {
        var text = expression
            .replacing(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/, with: "\"\"")
            .replacing(/\{[^}]*\}/, with: "{}")
            .replacing(/\[[^\]]*\]/, with: "[]")
        text = text.replacing(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/, with: " ")
        var names = Set<String>()
        for match in text.matches(of: /[A-Za-z0-9_:.]+/) {
            let token = String(match.output)
            guard let first = token.first, first.isLetter || first == "_" || first == ":" else { continue }
            guard !keywords.contains(token.lowercased()) else { continue }
            let rest = text[match.range.upperBound...].drop { $0 == " " || $0 == "\n" || $0 == "\t" }
            if rest.first == "(" { continue }
            names.insert(token)
        }
        return names
    }
}
