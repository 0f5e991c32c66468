import Foundation
import NIOHTTP1

/// A request as the probe sends it, after serialization: method, absolute URL, headers, body.
public struct ProbeRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL (query included).
    public var url: URL
    /// Header fields in order. Values are never logged.
    public var headers: [(name: String, value: String)]
    /// The body, empty for none.
    public var body: [UInt8]

    /// Makes a request.
    public init(method: HTTPMethod = .GET, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of a header (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { Self.sameFieldName($0.name, name) }?.value
    }

    /// Field names are ASCII tokens: compared byte by byte, ASCII letters without case (no Foundation locale rules).
    static func sameFieldName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
