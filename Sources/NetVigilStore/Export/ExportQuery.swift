/// What to export: a time range, optional target names and which kinds of history.
public struct ExportQuery: Sendable, Equatable {
    /// Kinds of history rows.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case probes, reachability, alerts
    }

    /// Inclusive lower bound; nil for the beginning.
    public var since: Timestamp?
    /// Exclusive upper bound; nil for the end.
    public var until: Timestamp?
    /// Only these targets; empty for all.
    public var targets: [String]
    /// Kinds to include, in document order.
    public var kinds: [Kind]

    public init(since: Timestamp? = nil, until: Timestamp? = nil, targets: [String] = [], kinds: [Kind] = Kind.allCases) {
        self.since = since
        self.until = until
        self.targets = targets
        self.kinds = Kind.allCases.filter { kinds.contains($0) }
    }

    /// SQL condition and arguments on `time_ms` and `target` for a table alias.
    func condition(alias: String) -> (sql: String, arguments: [Int64OrString]) {
        var clauses: [String] = []
        var arguments: [Int64OrString] = []
        if let since {
            clauses.append("\(alias).time_ms >= ?")
            arguments.append(.int(since.milliseconds))
        }
        if let until {
            clauses.append("\(alias).time_ms < ?")
            arguments.append(.int(until.milliseconds))
        }
        if !targets.isEmpty {
            clauses.append("\(alias).target IN (\(targets.map { _ in "?" }.joined(separator: ", ")))")
            arguments += targets.map { .string($0) }
        }
        return (clauses.isEmpty ? "1" : clauses.joined(separator: " AND "), arguments)
    }
}

/// A bound SQL argument.
enum Int64OrString: Sendable, Equatable {
    case int(Int64)
    case string(String)
}

/// Output formats of `netvigil export`.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One JSON document with arrays per kind.
    case json
    /// One JSON object per line, each with a `type` field.
    case ndjson
}

/// Rows written by an export.
public struct ExportSummary: Sendable, Equatable {
    public var probes = 0
    public var reachability = 0
    public var alerts = 0

    public init() {}

    public var total: Int { probes + reachability + alerts }
}
