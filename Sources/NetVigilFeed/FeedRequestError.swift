import Foundation
import Hummingbird

/// A request the feed cannot serve as asked: answered with its status and `{"error": "one line"}`.
public struct FeedRequestError: HTTPResponseError, CustomStringConvertible {
    public let status: HTTPResponse.Status
    /// One line naming the parameter (or header) and what was expected.
    public let message: String

    public init(_ message: String, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try jsonResponse(["error": message], status: status)
    }
}
