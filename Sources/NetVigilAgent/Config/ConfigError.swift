/// A configuration problem, located by file, line, column and key path.
///
/// Its description is the one line an operator sees, e.g.
/// `netvigil.yml:12:5: storage.retention: expected a duration like 30d`. Messages come from a fixed vocabulary and
/// never quote the document (a value may be a secret).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// File name as given by the operator (or `<embedded>` for the built-in default).
    public var file: String
    /// 1-based line, when known.
    public var line: Int?
    /// 1-based column, when known.
    public var column: Int?
    /// Dotted key path such as `storage.retention`; empty for the document itself.
    public var keyPath: String
    /// What is wrong, and what was expected.
    public var message: String
    /// Further problems found in the same load (`check-config` reports up to ``ConfigErrorCollector/limit``).
    public var others: [ConfigError] = []
    /// Problems found beyond those reported.
    public var omitted = 0

    public init(file: String, line: Int? = nil, column: Int? = nil, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// Every reported problem, one line each, then how many more were found.
    public var description: String {
        var lines = [oneLine] + others.map(\.oneLine)
        if omitted > 0 { lines.append("(\(omitted) more \(omitted == 1 ? "error" : "errors") not shown)") }
        return lines.joined(separator: "\n")
    }

    /// This problem alone, as one line.
    public var oneLine: String {
        // Key paths hold the document's keys: control characters in them are shown as '?'.
        let keyPath = String(keyPath.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return keyPath.isEmpty ? "\(location): \(message)" : "\(location): \(keyPath): \(message)"
    }
}
