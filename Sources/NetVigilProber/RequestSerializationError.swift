/// Why a request could not be built; raised before any connection is made.
public enum RequestSerializationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not absolute http(s) with a host.
    case invalidURL(String)
    /// The JSON body is not valid JSON.
    case invalidJSON(String)
    /// A header name or value contains CR, LF or is empty.
    case invalidHeader(String)

    public var description: String {
        switch self {
        case .invalidURL(let url): return "invalid URL \"\(url)\" (want http:// or https:// with a host)"
        case .invalidJSON(let detail): return "invalid JSON body: \(detail)"
        case .invalidHeader(let name): return "invalid header \"\(name)\""
        }
    }
}
