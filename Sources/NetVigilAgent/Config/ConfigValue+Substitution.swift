import Foundation

/// `${NAME}` and `${file:PATH}` in string values, and file paths relative to the configuration file.
///
/// Secrets stay out of the YAML: `token: ${NETVIGIL_TOKEN}` takes an environment variable, `password:
/// ${file:secrets/api}` a file's contents (without its final newline). `$${` writes a literal `${`. A missing
/// variable or unreadable file is a load error naming it; a substituted value is never printed.
extension ConfigValue {
    /// The directory of the configuration file, against which relative paths resolve ("" for a bare name).
    var directory: String { (file as NSString).deletingLastPathComponent }

    /// `path` as written, or resolved against the configuration file's directory when it is relative.
    func resolvedPath(_ path: String) -> String {
        guard !path.hasPrefix("/"), !directory.isEmpty else { return path }
        return (directory as NSString).appendingPathComponent(path)
    }

    /// The value as a file path, relative ones resolved against the configuration file's directory.
    public func filePath() throws -> String {
        resolvedPath(try nonEmptyString())
    }

    /// Expands `${NAME}`, `${file:PATH}` and `$${` in `text`. The environment is read only for a `${NAME}`: a copy
    /// of it for every string value dominated the loading of thousands of targets.
    func substituted(_ text: String) throws -> String {
        guard ConfigText.containsReference(text) else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            if start.lowerBound > rest.startIndex, rest[rest.index(before: start.lowerBound)] == "$" {
                // `$${` is a literal `${`.
                result += rest[..<rest.index(before: start.lowerBound)] + "${"
                rest = rest[start.upperBound...]
                continue
            }
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw error("unterminated ${ in a string (write $${ for a literal ${)")
            }
            let reference = String(rest[start.upperBound..<end])
            result += try expand(reference)
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    private func expand(_ reference: String) throws -> String {
        if reference.hasPrefix("file:") {
            let path = String(reference.dropFirst("file:".count))
            guard !path.isEmpty else { throw error("${file:} needs a path") }
            let resolved = resolvedPath(path)
            let data = try regularFileContents(at: resolved, failure: "cannot read \(resolved) named in ${file:\(path)}")
            var contents = String(decoding: data, as: UTF8.self)
            if contents.hasSuffix("\r\n") { contents.removeLast(2) } else if contents.hasSuffix("\n") { contents.removeLast() }
            return contents
        }
        guard !reference.isEmpty, reference.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }),
              !(reference.first?.isNumber ?? true) else {
            throw error("${\(reference)} is not an environment variable name (letters, digits, _) or ${file:PATH}")
        }
        guard let value = ProcessInfo.processInfo.environment[reference] else {
            throw error("environment variable \(reference) is not set")
        }
        return value
    }
}
