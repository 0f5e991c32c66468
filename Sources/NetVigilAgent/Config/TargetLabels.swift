/// `labels: {site: fra1, team: payments}`: Prometheus labels set at the top level and per target, carried by the
/// target's metric series, alert payloads and `/v1/status` entry (a target's own labels override the top level's).
///
/// Names are Prometheus label names (`[a-zA-Z_][a-zA-Z0-9_]*`, not `__…`) and may not be one of the labels netvigil
/// sets itself (`reservedNames`); values are non-empty single-line strings.
public struct TargetLabels: Sendable, Hashable, Codable {
    /// Labels netvigil sets itself on series and alerts (configuring one would clash or be overwritten).
    public static let reservedNames: Set<String> = [
        "target", "endpoint", "phase", "outcome", "flag", "sink", "kind", "version", "instance", "job", "alertname",
        "severity", "le", "quantile",
    ]
    /// At most this many labels per target (each one is on every series of the target).
    static let maxCount = 16
    /// At most this many characters per name and per value.
    static let maxLength = 128

    /// Name and value pairs, sorted by name.
    public private(set) var pairs: [(name: String, value: String)]

    public init() { pairs = [] }

    /// Labels from name/value pairs (the caller validated them).
    public init(_ dictionary: [String: String]) {
        pairs = dictionary.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The labels as a dictionary.
    public var dictionary: [String: String] {
        Dictionary(uniqueKeysWithValues: pairs.map { ($0.name, $0.value) })
    }

    public var isEmpty: Bool { pairs.isEmpty }

    /// These labels with `other`'s added, `other` winning on a shared name.
    public func merging(_ other: TargetLabels) -> TargetLabels {
        TargetLabels(dictionary.merging(other.dictionary) { _, new in new })
    }

    /// Whether `name` is a valid Prometheus label name (`[a-zA-Z_][a-zA-Z0-9_]*`).
    public static func isPrometheusName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    /// Reads and validates a `labels:` mapping.
    init(reading value: ConfigValue) throws {
        guard case .mapping(let mapping) = value.node else {
            throw value.error("expected a mapping of label names to values, e.g. {site: fra1}, got \(value.shortDescription)")
        }
        var result: [String: String] = [:]
        for (keyNode, valueNode) in mapping {
            let keyValue = ConfigValue(node: keyNode, path: value.path, file: value.file)
            let name = try keyValue.string()
            let entry = ConfigValue(node: valueNode, path: "\(value.path).\(name)", file: value.file)
            guard Self.isPrometheusName(name), name.count <= Self.maxLength else {
                throw entry.error("label names are Prometheus names: letters, digits and '_', not starting with a digit (at most \(Self.maxLength))")
            }
            guard !name.hasPrefix("__") else { throw entry.error("label names starting with __ are reserved by Prometheus") }
            guard !Self.reservedNames.contains(name) else {
                throw entry.error("\"\(name)\" is set by netvigil; reserved: \(Self.reservedNames.sorted().joined(separator: ", "))")
            }
            let text = try entry.nonEmptyString()
            guard text.count <= Self.maxLength, !ConfigValue.hasControlCharacter(text, allowsTab: false) else {
                throw entry.error("label values are one line of at most \(Self.maxLength) characters")
            }
            result[name] = text
        }
        guard result.count <= Self.maxCount else { throw value.error("at most \(Self.maxCount) labels (the limit)") }
        self.init(result)
    }

    // MARK: - Hashable, Codable (as a JSON object)

    public static func == (lhs: TargetLabels, rhs: TargetLabels) -> Bool { lhs.dictionary == rhs.dictionary }

    public func hash(into hasher: inout Hasher) { hasher.combine(dictionary) }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([String: String].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(dictionary)
    }
}
