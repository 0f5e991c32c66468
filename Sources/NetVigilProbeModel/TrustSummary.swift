/// A trust verdict as results keep it: trusted, or untrusted with the failure's kind (e.g. `chainInvalid`).
///
/// Its text (`trusted`, `untrusted:<kind>`) is what the store, the export and every JSON form hold.
public enum TrustSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    case trusted
    /// `reason` is the failure's stable kind (`ServerTrustFailureReason.kind`).
    case untrusted(reason: String)

    /// Reads the text form; nil for anything else.
    public init?(_ text: String) {
        if text == "trusted" {
            self = .trusted
        } else if text.hasPrefix(Self.untrustedPrefix) {
            self = .untrusted(reason: String(text.dropFirst(Self.untrustedPrefix.count)))
        } else {
            return nil
        }
    }

    /// `trusted` or `untrusted:<kind>`.
    public var description: String {
        switch self {
        case .trusted: "trusted"
        case .untrusted(let reason): Self.untrustedPrefix + reason
        }
    }

    /// True for `trusted`.
    public var isTrusted: Bool { self == .trusted }

    /// The failure kind, nil when trusted.
    public var reason: String? {
        if case .untrusted(let reason) = self { return reason }
        return nil
    }

    private static let untrustedPrefix = "untrusted:"

    /// One JSON string, the text form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let summary = TrustSummary(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a trust verdict: \(text)")
        }
        self = summary
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
