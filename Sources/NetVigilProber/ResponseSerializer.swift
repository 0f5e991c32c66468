import Foundation

/// AFHTTPResponseSerializer / AFJSONResponseSerializer: validates status and content type, then parses the body.
///
/// Order (AFNetworking's rule): an unacceptable content type fails at once, without parsing; an unacceptable
/// status still parses the body and attaches the object to the error. An empty or single-space body has no object.
public struct ResponseSerializer: Sendable {
    /// The result of validating and parsing one response.
    public struct Output: @unchecked Sendable {
        /// The parsed object (JSON: `[String: Any]`, `[Any]`, `String`, `NSNumber`, `NSNull`; raw: nil), nil for no body.
        public var object: Any?
        /// The validation or parsing failure, nil when acceptable.
        public var error: ProbeError?
    }

    /// Status codes accepted (default 200–299).
    public var acceptableStatusCodes: Set<Int>
    /// MIME types accepted; nil accepts any (AFHTTPResponseSerializer's default).
    public var acceptableContentTypes: Set<String>?
    /// Parse the body as JSON.
    public var parsesJSON: Bool
    /// Drop `null` values from JSON objects, recursively.
    public var removesKeysWithNullValues: Bool

    /// AFHTTPResponseSerializer defaults: 200–299, any content type, no parsing.
    public static let http = ResponseSerializer(acceptableStatusCodes: Set(200...299), acceptableContentTypes: nil,
                                                parsesJSON: false, removesKeysWithNullValues: false)
    /// AFJSONResponseSerializer defaults: 200–299 and `application/json`, `text/json`, `text/javascript`.
    public static let json = ResponseSerializer(acceptableStatusCodes: Set(200...299),
                                                acceptableContentTypes: ["application/json", "text/json", "text/javascript"],
                                                parsesJSON: true, removesKeysWithNullValues: false)

    /// Makes a serializer.
    public init(acceptableStatusCodes: Set<Int>, acceptableContentTypes: Set<String>?, parsesJSON: Bool,
                removesKeysWithNullValues: Bool) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.parsesJSON = parsesJSON
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// Validates and parses `response`.
    public func serialize(_ response: HTTPResponse) -> Output {
        // AFNetworking checks the content type only when there is a body (data.length > 0) or no MIME type is known.
        if let acceptable = acceptableContentTypes, !response.body.isEmpty || response.mimeType == nil {
            let type = response.mimeType
            if type == nil || !acceptable.contains(type!) {
                return Output(object: nil, error: ProbeError(.contentType,
                    "unacceptable content type \(type ?? "(none)"); acceptable: \(acceptable.sorted().joined(separator: ", "))"))
            }
        }
        var error: ProbeError? = nil
        if !acceptableStatusCodes.contains(response.status) {
            error = ProbeError(.status, "unacceptable status \(response.status)")
        }
        guard parsesJSON else { return Output(object: nil, error: error) }
        if response.body.isEmpty || response.body == [0x20] { return Output(object: nil, error: error) }
        do {
            var object = try JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
            if removesKeysWithNullValues { object = Self.removingNulls(object) }
            return Output(object: object, error: error)
        } catch let parseError {
            // A status failure is reported first (AFNetworking chains the parse error under it).
            let detail = (parseError as NSError).localizedDescription
            return Output(object: nil, error: error ?? ProbeError(.httpProtocol, "invalid JSON body: \(detail)"))
        }
    }

    /// AFJSONObjectByRemovingKeysWithNullValues.
    static func removingNulls(_ object: Any) -> Any {
        if let array = object as? [Any] {
            return array.map(removingNulls)
        }
        if let dictionary = object as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in dictionary where !(value is NSNull) {
                result[key] = removingNulls(value)
            }
            return result
        }
        return object
    }
}
