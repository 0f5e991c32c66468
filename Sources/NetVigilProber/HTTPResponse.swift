import NIOHTTP1

/// A complete response as received (status line, headers, body bytes).
public struct HTTPResponse: Sendable {
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: HTTPHeaders
    /// The body (at most the configured limit).
    public var body: [UInt8]

    /// Makes a response.
    public init(version: String = "HTTP/1.1", status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.version = version
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The MIME type of `Content-Type` without parameters, lower-cased; nil when absent.
    public var mimeType: String? {
        guard let value = headers.first(name: "Content-Type") else { return nil }
        // type/subtype before any parameter, without surrounding spaces or tabs, ASCII letters lower-cased
        // (media types are ASCII tokens; no Foundation locale rules on a per-probe path).
        let type = value.utf8.prefix { $0 != UInt8(ascii: ";") }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let trimmed = type.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !trimmed.isEmpty else { return nil }
        return String(decoding: trimmed.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
