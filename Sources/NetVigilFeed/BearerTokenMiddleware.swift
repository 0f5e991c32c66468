import Hummingbird
import NetVigilAgent

/// Requires `Authorization: Bearer TOKEN` on every route except the open paths (`/healthz` and the status page `/`,
/// which holds no data) and paths matching an open pattern (the target pages `/targets/*`, which hold none either;
/// `*` is one path segment).
///
/// The comparison takes the same time whatever the input (no early exit on the first differing byte).
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]
    let openPaths: Set<String>
    let openPatterns: [[Substring]]

    public init(token: Secret, openPaths: Set<String> = ["/healthz", "/"], openPatterns: [String] = ["/targets/*"]) {
        self.token = Array(token.value.utf8)
        self.openPaths = openPaths
        self.openPatterns = openPatterns.map { $0.split(separator: "/", omittingEmptySubsequences: false) }
    }

    /// Whether `path` is open: listed, or segment by segment like an open pattern (`*` matches any one segment).
    func isOpen(_ path: String) -> Bool {
        if openPaths.contains(path) { return true }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return openPatterns.contains { pattern in
            pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0 == "*" ? !$1.isEmpty : $0 == $1 }
        }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if isOpen(request.uri.path) {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              Self.constantTimeEquals(Array(header.utf8.dropFirst(7)), token) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer realm=\"netvigil\""
            headers[.contentType] = "application/json"
            return Response(status: .unauthorized, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"missing or wrong bearer token\"}\n")))
        }
        return try await next(request, context)
    }

    /// Compares without data-dependent early exit; the length difference is folded into the result.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = a.count ^ b.count
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= Int(x ^ y)
        }
        return difference == 0
    }
}
