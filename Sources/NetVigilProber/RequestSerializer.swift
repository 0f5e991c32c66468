import Foundation
import NIOHTTP1

/// AFHTTPRequestSerializer: default headers, query parameters in the URL for GET/HEAD/DELETE, a form body otherwise.
public struct RequestSerializer: Sendable {
    /// How parameters become a body for methods that do not encode them in the URI.
    public enum BodyEncoding: Sendable {
        /// `application/x-www-form-urlencoded` with AFNetworking's query string.
        case form
        /// `application/json` (AFJSONRequestSerializer).
        case json
    }

    /// Headers added to every request unless set explicitly (`User-Agent`, `Accept`, `Accept-Encoding`).
    public var defaultHeaders: [(name: String, value: String)]
    /// Body encoding for POST, PUT, PATCH.
    public var bodyEncoding: BodyEncoding

    /// Makes a serializer with netvigil's default headers.
    public init(version: String = "dev", bodyEncoding: BodyEncoding = .form) {
        self.defaultHeaders = [("User-Agent", "netvigil/\(version)"), ("Accept", "*/*"), ("Accept-Encoding", "identity")]
        self.bodyEncoding = bodyEncoding
    }

    /// The `Authorization` value for HTTP basic authentication.
    public static func basicAuthorization(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Builds a request.
    /// - Parameters:
    ///   - parameters: flattened with `QueryString.encode`; in the URL for GET/HEAD/DELETE, else the body.
    ///   - jsonBody: raw JSON text sent as the body (validated first); wins over `parameters` for the body.
    public func request(method: HTTPMethod, url string: String, parameters: [String: RequestParameter] = [:],
                        headers: [(name: String, value: String)] = [], jsonBody: String? = nil)
        throws(RequestSerializationError) -> ProbeRequest {
        guard let components = URLComponents(string: string) else { throw .invalidURL(string) }
        do {
            return try request(method: method, components: components, parameters: parameters, headers: headers,
                               jsonBody: jsonBody)
        } catch .invalidURL {
            throw .invalidURL(string)  // the text as given, not as URLComponents writes it again
        } catch {
            throw error
        }
    }

    /// Builds a request from a URL already parsed (the configuration parses each target's URL once).
    public func request(method: HTTPMethod, components: URLComponents, parameters: [String: RequestParameter] = [:],
                        headers: [(name: String, value: String)] = [], jsonBody: String? = nil)
        throws(RequestSerializationError) -> ProbeRequest {
        var components = components
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidURL(components.string ?? "")
        }
        for header in headers where header.name.isEmpty || (header.name + header.value).unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw .invalidHeader(header.name)
        }
        var allHeaders = headers
        func hasHeader(_ name: String) -> Bool {
            allHeaders.contains { ProbeRequest.sameFieldName($0.name, name) }
        }
        for header in defaultHeaders where !hasHeader(header.name) {
            allHeaders.append(header)
        }
        var body: [UInt8] = []
        let query = QueryString.encode(parameters)
        if method.encodesParametersInURI {
            if !query.isEmpty {
                let existing = components.percentEncodedQuery
                components.percentEncodedQuery = (existing.map { $0 + "&" } ?? "") + query
            }
        } else if let jsonBody {
            do {
                _ = try JSONSerialization.jsonObject(with: Data(jsonBody.utf8), options: [.fragmentsAllowed])
            } catch {
                throw .invalidJSON((error as NSError).localizedDescription)
            }
            body = Array(jsonBody.utf8)
            if !hasHeader("Content-Type") { allHeaders.append(("Content-Type", "application/json")) }
        } else if !parameters.isEmpty {
            switch bodyEncoding {
            case .form:
                body = Array(query.utf8)
                if !hasHeader("Content-Type") { allHeaders.append(("Content-Type", "application/x-www-form-urlencoded")) }
            case .json:
                body = Array(Self.json(parameters).utf8)
                if !hasHeader("Content-Type") { allHeaders.append(("Content-Type", "application/json")) }
            }
        }
        // The host is checked on the URL the prober connects by: URLComponents' `host` and `percentEncodedHost`
        // decode IDNA through ICU, work a test for emptiness does not need.
        guard let url = components.url, let host = url.host, !host.isEmpty else { throw .invalidURL(components.string ?? "") }
        return ProbeRequest(method: method, url: url, headers: allHeaders, body: body)
    }

    /// JSON text of parameters (sorted keys; sets as arrays).
    static func json(_ parameters: [String: RequestParameter]) -> String {
        func object(_ value: RequestParameter) -> Any {
            switch value {
            case .string(let string): return string
            case .array(let array), .set(let array): return array.map(object)
            case .dictionary(let dictionary): return dictionary.mapValues(object)
            case .null: return NSNull()
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: parameters.mapValues(object), options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
