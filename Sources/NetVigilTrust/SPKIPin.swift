import Foundation

/// A public-key pin: the SHA-256 of a DER SubjectPublicKeyInfo (RFC 7469), written `sha256/BASE64`.
public struct SPKIPin: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    /// The 32-byte digest.
    public let digest: Data

    /// Wraps a 32-byte SHA-256 digest.
    public init(digest: Data) {
        precondition(digest.count == 32, "an SPKI pin is a SHA-256 digest")
        self.digest = digest
    }

    /// Parses `sha256/BASE64` (OkHttp, netvigil) or `pin-sha256="BASE64"` (HPKP header syntax).
    public init(parsing text: String) throws(PinParseError) {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("sha256/") {
            value.removeFirst("sha256/".count)
        } else if value.lowercased().hasPrefix("pin-sha256=") {
            value.removeFirst("pin-sha256=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
        } else {
            throw PinParseError(text: text, problem: "expected sha256/BASE64 or pin-sha256=\"BASE64\"")
        }
        guard let digest = Data(base64Encoded: value) else {
            throw PinParseError(text: text, problem: "the pin is not valid base64")
        }
        guard digest.count == 32 else {
            throw PinParseError(text: text, problem: "the pin decodes to \(digest.count) bytes, a SHA-256 pin has 32")
        }
        self.digest = digest
    }

    /// `sha256/BASE64`.
    public var description: String { "sha256/" + digest.base64EncodedString() }

    public static func < (lhs: SPKIPin, rhs: SPKIPin) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try SPKIPin(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A pin string that is not `sha256/BASE64` of 32 bytes.
public struct PinParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// What is wrong with it.
    public let problem: String

    public var description: String { "invalid pin \"\(text)\": \(problem)" }
}
