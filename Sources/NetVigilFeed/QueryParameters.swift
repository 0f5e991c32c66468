import Hummingbird
import NetVigilStore

/// A request's query parameters, checked against the names a route accepts: the one place the agent's feed and the
/// hub name an unknown or repeated parameter and read a time, so that every route answers bad input alike.
public struct QueryParameters: Sendable {
    /// Every value of each parameter, in order.
    public let values: [String: [String]]

    /// The request's parameters by name, in order, unchecked.
    public static func values(of request: Request) -> [String: [String]] {
        request.uri.queryParameters.reduce(into: [:]) { result, parameter in
            result[String(parameter.key), default: []].append(String(parameter.value))
        }
    }

    /// - Parameters:
    ///   - accepted: the route's parameters; any other is an error naming them (or `expected`, when given).
    ///   - once: those that may be given at most once.
    /// - Throws: `FeedRequestError` (400) naming the first bad parameter.
    public init(_ values: [String: [String]], accepted: [String], once: [String], expected: String? = nil) throws(FeedRequestError) {
        for name in values.keys.sorted() where !accepted.contains(name) {
            throw FeedRequestError("unknown parameter \"\(name.prefix(40))\" (expected \(expected ?? "one of \(accepted.joined(separator: ", "))"))")
        }
        for name in once where values[name, default: []].count > 1 {
            throw FeedRequestError("\(name): give it at most once")
        }
        self.values = values
    }

    public init(_ request: Request, accepted: [String], once: [String]) throws(FeedRequestError) {
        try self.init(Self.values(of: request), accepted: accepted, once: once)
    }

    /// The parameter's first value.
    public subscript(name: String) -> String? { values[name]?.first }

    /// A time parameter: RFC 3339, or relative to `now` like `-24h`; nil when not given.
    public func time(_ name: String, now: Timestamp) throws(FeedRequestError) -> Timestamp? {
        guard let text = self[name] else { return nil }
        guard let value = Timestamp.parse(text, now: now) else {
            throw FeedRequestError("\(name): cannot parse time \"\(text.prefix(40))\" (use RFC 3339 like 2026-11-22T10:00:00Z, or -24h)")
        }
        return value
    }
}
