import Foundation

extension ProbeRecord {
    /// What one stored result may hold, whatever a server sends (a 60 KB `Location` must not cost 120 KB a row).
    public enum Bounds {
        /// `url` in UTF-8 bytes.
        public static let urlBytes = 2_048
        /// `error_message` in UTF-8 bytes.
        public static let messageBytes = 1_024
        /// The `details` JSON object text in UTF-8 bytes.
        public static let detailsBytes = 4_096
        /// Each string inside an over-long `details` object.
        public static let detailsStringBytes = 512
        /// Findings kept of one result (the first ones: leaf first).
        public static let findings = 16
        /// Each finding's message in UTF-8 bytes (it may quote names from the certificate).
        public static let findingMessageBytes = 512
        /// Server-chosen short texts: `content_type`, `http_version`, TLS cipher and ALPN.
        public static let shortTextBytes = 256
        /// Appended to a cut string (counted in its bound).
        public static let marker = "…(truncated)"
    }

    /// This result with every text within `Bounds`: strings cut on a UTF-8 boundary with `Bounds.marker`; an
    /// over-long `details` object keeps its keys with shortened strings, drops trailing array items as needed and
    /// gains `"truncated": true` (or becomes `{"truncated":true}` alone); findings past `Bounds.findings` are dropped.
    public var bounded: ProbeRecord {
        var record = self
        record.url = Self.bounded(url, Bounds.urlBytes)
        record.errorMessage = Self.bounded(errorMessage, Bounds.messageBytes)
        record.contentType = Self.bounded(contentType, Bounds.shortTextBytes)
        record.httpVersion = Self.bounded(httpVersion, Bounds.shortTextBytes)
        record.tlsCipher = Self.bounded(tlsCipher, Bounds.shortTextBytes)
        record.alpn = Self.bounded(alpn, Bounds.shortTextBytes)
        record.detailsJSON = Self.boundedDetails(detailsJSON)
        record.findings = Self.boundedFindings(findings)
        return record
    }

    /// Whether `bounded` would change anything (cheap: UTF-8 counts of native strings are O(1)).
    public var exceedsBounds: Bool {
        (url?.utf8.count ?? 0) > Bounds.urlBytes || (errorMessage?.utf8.count ?? 0) > Bounds.messageBytes
            || (detailsJSON?.utf8.count ?? 0) > Bounds.detailsBytes
            || [contentType, httpVersion, tlsCipher, alpn].contains { ($0?.utf8.count ?? 0) > Bounds.shortTextBytes }
            || findingsExceedBounds
    }

    /// `text` cut to at most `limit` UTF-8 bytes including the marker, never inside a character's bytes.
    static func bounded(_ text: String?, _ limit: Int) -> String? {
        guard let text, text.utf8.count > limit else { return text }
        let marker = Array(Bounds.marker.utf8)
        let bytes = Array(text.utf8)
        var end = max(0, limit - marker.count)
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }  // back to the first byte of a character
        return String(decoding: bytes[..<end] + marker, as: UTF8.self)
    }

    static func boundedDetails(_ json: String?) -> String? {
        guard let json, json.utf8.count > Bounds.detailsBytes else { return json }
        let fallback = #"{"truncated":true}"#
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              var shortened = shorten(object) as? [String: Any] else { return fallback }
        shortened["truncated"] = true
        while let text = encode(shortened) {
            if text.utf8.count <= Bounds.detailsBytes { return text }
            // Drop the last item of the longest array, until the object fits.
            guard let key = shortened.keys.sorted().max(by: { arrayCount(shortened[$0]) < arrayCount(shortened[$1]) }),
                  var items = shortened[key] as? [Any], !items.isEmpty else { break }
            items.removeLast()
            shortened[key] = items
        }
        return fallback
    }

    private static func shorten(_ value: Any) -> Any {
        switch value {
        case let text as String: bounded(text, Bounds.detailsStringBytes) ?? text
        case let array as [Any]: array.map(shorten)
        case let object as [String: Any]: object.mapValues(shorten)
        default: value
        }
    }

    private static func arrayCount(_ value: Any?) -> Int { (value as? [Any])?.count ?? 0 }

    private static func encode(_ object: [String: Any]) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
