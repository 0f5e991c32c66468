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
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }
}
