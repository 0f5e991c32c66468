import Yams

/// One node of a configuration document, with the key path and position needed for error messages.
///
/// Section types read their settings through this type so that every error names
/// file, line, column and key path the same way.
public struct ConfigValue: @unchecked Sendable {
    // `Yams.Node` is an immutable value tree; it is only not annotated Sendable.
    let node: Node
    /// Dotted key path, e.g. `feed.listen`.
    public let path: String
    /// File name used in messages.
    public let file: String

    init(node: Node, path: String, file: String) {
        self.node = node
        self.path = path
        self.file = file
    }

    /// How configuration documents are composed: without resolving each plain scalar's implicit tag (bool, int,
    /// float, null, timestamp), which takes a regular-expression match per scalar: a large share of loading thousands
    /// of targets. Settings parse their own text; ``jsonCompatible()`` resolves the few it types.
    static let resolver = Resolver.basic

    /// The node's content as text that two nodes share exactly when they are equal as configuration: every scalar
    /// with its length and whether it was plain, mappings and lists with their sizes, in document order. It tells a
    /// changed target from an unchanged one on reload, more cheaply than emitting each target's YAML.
    static func canonicalText(of node: Node) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendCanonical(node, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends to bytes, not to a `String`: the many short appends were half of a target's fingerprint.
    private static func appendCanonical(_ node: Node, to bytes: inout [UInt8]) {
        func count(_ prefix: Character, _ value: Int) {
            bytes.append(prefix.asciiValue!)
            bytes.append(contentsOf: String(value).utf8)
            bytes.append(UInt8(ascii: ":"))
        }
        switch node {
        case .scalar(let scalar):
            count(scalar.style == .plain ? "p" : "q", scalar.string.utf8.count)
            bytes.append(contentsOf: scalar.string.utf8)
        case .mapping(let mapping):
            count("{", mapping.count)
            for (key, value) in mapping {
                appendCanonical(key, to: &bytes)
                appendCanonical(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .sequence(let sequence):
            count("[", sequence.count)
            for item in sequence { appendCanonical(item, to: &bytes) }
            bytes.append(UInt8(ascii: "]"))
        case .alias(let alias):
            count("*", alias.anchor.rawValue.utf8.count)
            bytes.append(contentsOf: alias.anchor.rawValue.utf8)
        }
    }

    /// An error located at this value.
    public func error(_ message: String) -> ConfigError {
        ConfigError(file: file, line: node.mark?.line, column: node.mark?.column, keyPath: path, message: message)
    }

    /// Whether the value is YAML null (`~`, `null` or empty).
    public var isNull: Bool {
        if case .scalar(let scalar) = node {
            guard scalar.style == .plain else { return false }
            switch scalar.string {
            case "", "~", "null", "Null", "NULL": return true
            default: return false
            }
        }
        return false
    }

    /// The node's kind for "got ..." messages; never its text (which may be a secret).
    var shortDescription: String {
        switch node {
        case .scalar: return isNull ? "nothing" : "a single value"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// The value as a string scalar.
    public func string() throws -> String {
        guard case .scalar(let scalar) = node else {
            throw error("expected a string, got \(shortDescription)")
        }
        return try substituted(scalar.string)
    }

    /// The value as a non-empty string scalar.
    public func nonEmptyString() throws -> String {
        let value = try string()
        guard !ConfigText.isBlank(value) else { throw error("must not be empty") }
        return value
    }

    /// The value as an integer within `range`.
    public func int(in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int {
        guard case .scalar(let scalar) = node, let value = Int(scalar.string) else {
            throw error("expected a whole number, got \(shortDescription)")
        }
        guard range.contains(value) else {
            throw error("expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The value as a boolean (`true`/`false`, `yes`/`no`, `on`/`off`).
    public func bool() throws -> Bool {
        if case .scalar(let scalar) = node {
            switch scalar.string.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        throw error("expected true or false, got \(shortDescription)")
    }

    /// The value as a duration such as `500ms`, `10s`, `5m`, `6h`, `30d` (units may be combined: `1h30m`).
    public func duration(minimum: Duration? = nil) throws -> Duration {
        let text = try string()
        guard let value = ConfigDuration.parse(text) else {
            throw error("expected a duration like 30d")
        }
        if let minimum, value < minimum {
            throw error("must be at least \(ConfigDuration.format(minimum))")
        }
        return value
    }

    /// One of a fixed set of words.
    public func oneOf(_ choices: [String]) throws -> String {
        let value = try string()
        guard choices.contains(value) else {
            throw error("expected one of \(choices.joined(separator: ", "))")
        }
        return value
    }

    /// The value as a list; a single scalar is not accepted as a list.
    public func sequence() throws -> [ConfigValue] {
        guard case .sequence(let sequence) = node else {
            throw error("expected a list, got \(shortDescription)")
        }
        return sequence.enumerated().map { index, child in
            ConfigValue(node: child, path: "\(path)[\(index)]", file: file)
        }
    }

    /// The value as a mapping whose keys must all be in `allowedKeys`.
    ///
    /// An unknown key is an error (a typo must never silently disable monitoring).
    public func mapping(allowedKeys: [String]) throws -> ConfigMapping {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping of \(allowedKeys.joined(separator: ", ")), got \(shortDescription)")
        }
        var keys: [String] = []
        var values: [ConfigValue] = []
        keys.reserveCapacity(mapping.count)
        values.reserveCapacity(mapping.count)
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw ConfigValue(node: keyNode, path: path, file: file).error("keys must be strings")
            }
            let key = keyScalar.string
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            if !allowedKeys.contains(key) {
                var message = "unknown key"
                if let suggestion = ConfigSpelling.closest(to: key, in: allowedKeys) {
                    message += " (did you mean \(suggestion)?)"
                }
                message += "; expected one of: \(allowedKeys.joined(separator: ", "))"
                throw ConfigValue(node: keyNode, path: keyPath, file: file).error(message)
            }
            keys.append(key)
            values.append(ConfigValue(node: valueNode, path: keyPath, file: file))
        }
        return ConfigMapping(owner: self, keys: keys, values: values)
    }
}

/// The checked keys of a mapping node.
public struct ConfigMapping: Sendable {
    /// The mapping node itself (for errors about missing keys).
    public let owner: ConfigValue
    /// The keys in document order; `values[i]` is the value of `keys[i]`. Kept apart so that a look-up compares
    /// keys without copying values (a target's ~25 look-ups were a seventh of loading 10,000 targets).
    let keys: [String]
    let values: [ConfigValue]

    /// The keys and values in document order.
    var entries: Zip2Sequence<[String], [ConfigValue]> { zip(keys, values) }

    /// The value under `key`, or nil when absent or null.
    public subscript(_ key: String) -> ConfigValue? {
        guard let index = keys.firstIndex(of: key), !values[index].isNull else { return nil }
        return values[index]
    }

    /// The value under `key`, or an error naming the missing key.
    public func required(_ key: String) throws -> ConfigValue {
        guard let value = self[key] else {
            let path = owner.path.isEmpty ? key : "\(owner.path).\(key)"
            throw ConfigError(file: owner.file, line: owner.node.mark?.line, column: owner.node.mark?.column,
                              keyPath: path, message: "required key is missing")
        }
        return value
    }

    /// Whether `key` is present (even as null).
    public func contains(_ key: String) -> Bool {
        keys.contains(key)
    }
}
