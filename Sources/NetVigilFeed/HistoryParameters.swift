import Hummingbird
import NetVigilStore

/// The query parameters of `/v1/history` and `/v1/export`, validated.
///
/// Filters mean what `netvigil export` options mean: `target` (repeatable), `kind` (`probes`, `reachability`,
/// `alerts`, `all`, or a comma-separated list; `probe` and `alert` are accepted too), `since`/`until` (RFC 3339 or
/// relative to now like `-24h`, `now`).
struct HistoryParameters {
    var query: ExportQuery
    /// `/v1/history`: page size, 1...1000 (default 100).
    var limit = 100
    /// `/v1/history`: where the page starts.
    var cursor: HistoryCursor?
    /// `/v1/export`: `json` (default) or `ndjson`.
    var format = ExportFormat.json

    /// Which route is asking: each accepts only its own parameters.
    enum Route {
        case history, export

        var names: [String] {
            switch self {
            case .history: ["target", "kind", "since", "until", "limit", "cursor"]
            case .export: ["target", "kind", "since", "until", "format"]
            }
        }
    }

    /// Parses and validates; throws `FeedRequestError` (400) naming the first bad parameter.
    init(_ values: [String: [String]], route: Route, now: Timestamp = .now()) throws {
        let parameters = try QueryParameters(values, accepted: route.names,
                                             once: ["kind", "since", "until", "limit", "cursor", "format"])
        func time(_ name: String) throws -> Timestamp? { try parameters.time(name, now: now) }
        let since = try time("since")
        let until = try time("until")
        if let since, let until, until <= since {
            throw FeedRequestError("until (\(until)) must be after since (\(since))")
        }
        let targets = values["target", default: []]
        if targets.contains(where: \.isEmpty) {
            throw FeedRequestError("target: must not be empty")
        }
        query = ExportQuery(since: since, until: until, targets: targets, kinds: try Self.kinds(parameters["kind"]))
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...HistoryExporter.maximumPageSize).contains(value) else {
                throw FeedRequestError("limit: expected an integer from 1 to \(HistoryExporter.maximumPageSize), got \"\(text)\"")
            }
            limit = value
        }
        if let text = parameters["cursor"] {
            guard let value = HistoryCursor(encoded: text) else {
                throw FeedRequestError("cursor: not a cursor this feed returned (\"\(text.prefix(40))\")")
            }
            cursor = value
        }
        if let text = parameters["format"] {
            guard let value = ExportFormat(rawValue: text) else {
                throw FeedRequestError("format: expected json or ndjson, got \"\(text)\"")
            }
            format = value
        }
    }

    private static func kinds(_ text: String?) throws -> [ExportQuery.Kind] {
        guard let text else { return ExportQuery.Kind.allCases }
        var kinds: [ExportQuery.Kind] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch name {
            case "all": kinds += ExportQuery.Kind.allCases
            case "probes", "probe": kinds.append(.probes)
            case "reachability": kinds.append(.reachability)
            case "alerts", "alert": kinds.append(.alerts)
            default:
                throw FeedRequestError("kind: expected probes, reachability, alerts or all, got \"\(name)\"")
            }
        }
        return kinds
    }
}
