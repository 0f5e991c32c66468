import Foundation

/// AFNetworking's `AFQueryStringFromParameters` and `AFPercentEscapedStringFromString`.
public enum QueryString {
    /// The characters left unescaped: URL-query-allowed minus `:#[]@` (RFC 3986 gen-delims but `?` and `/`)
    /// and `!$&'()*+,;=` (sub-delims).
    static let allowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: ":#[]@" + "!$&'()*+,;=")
        return set
    }()

    /// Percent-escapes `string` with AFNetworking's rule.
    public static func percentEscaped(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }

    /// `key=value` pairs joined by `&`; dictionary keys sorted ascending, nested as `a[b]`, arrays as `a[]`,
    /// sets as repeated keys (members sorted), null as the bare key.
    public static func encode(_ parameters: [String: RequestParameter]) -> String {
        pairs(key: nil, value: .dictionary(parameters)).map { pair in
            guard let value = pair.value else { return percentEscaped(pair.field) }
            return percentEscaped(pair.field) + "=" + percentEscaped(value)
        }.joined(separator: "&")
    }

    private static func pairs(key: String?, value: RequestParameter) -> [(field: String, value: String?)] {
        switch value {
        case .dictionary(let dictionary):
            return dictionary.keys.sorted().flatMap { nested in
                pairs(key: key.map { "\($0)[\(nested)]" } ?? nested, value: dictionary[nested]!)
            }
        case .array(let array):
            return array.flatMap { pairs(key: (key ?? "") + "[]", value: $0) }
        case .set(let members):
            return members.sorted { sortKey($0) < sortKey($1) }.flatMap { pairs(key: key, value: $0) }
        case .string(let string):
            return [(key ?? "", string)]
        case .null:
            return [(key ?? "", nil)]
        }
    }

    private static func sortKey(_ value: RequestParameter) -> String {
        if case .string(let string) = value { return string }
        return "\(value)"
    }
}
